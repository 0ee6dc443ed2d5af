# The actions example of docs/examples: on ... do print of an argument at
# entries (its register, then by name, typed from the DWARF: descend(n:
# u64) -> u64) and of the return value at exits, log, count; the counter
# equals the fixture's own count of fib.  descend(3) calls descend(2) ...
# descend(0) and each returns its argument.
fixture = "recursion"
args = ["3", "7", "12"]
session = {
    "script": "docs/examples/actions.rtx",
    "exit": 0,
    "stdout_contains": [
        "recursion::descend entry: arg0 = 3 (0x3)",
        "recursion::descend entry: n: u64 = 3",
        "recursion::descend entry: arg0 = 2 (0x2)",
        "recursion::descend entry: n: u64 = 2",
        "recursion::descend entry: arg0 = 1 (0x1)",
        "recursion::descend entry: n: u64 = 1",
        "recursion::descend entry: arg0 = 0 (0)",
        "recursion::descend entry: n: u64 = 0",
        "recursion::descend exit: retval: u64 = 0",
        "recursion::descend exit: retval: u64 = 1",
        "recursion::descend exit: retval: u64 = 2",
        "recursion::descend exit: retval: u64 = 3",
        "recursion::is_even entry: even?",
        "fib-calls                {count:recursion::fib}",
    ],
    "stderr_lines": 1,
}
