# The actions example of docs/examples: on ... do print of an argument at
# entries and of the return value at exits, log, count; the counter
# equals the fixture's own count of fib.
fixture = "recursion"
args = ["3", "7", "12"]
session = {
    "script": "docs/examples/actions.rtx",
    "exit": 0,
    "stdout_contains": [
        "recursion::descend entry: arg0 = 3 (0x3)",
        "recursion::descend entry: arg0 = 2 (0x2)",
        "recursion::descend entry: arg0 = 1 (0x1)",
        "recursion::descend entry: arg0 = 0 (0)",
        "recursion::descend exit: retval = 0 (0)",
        "recursion::descend exit: retval = 1 (0x1)",
        "recursion::descend exit: retval = 2 (0x2)",
        "recursion::descend exit: retval = 3 (0x3)",
        "recursion::is_even entry: even?",
        "fib-calls                {count:recursion::fib}",
    ],
    "stderr_lines": 1,
}
