# The break example of docs/examples: a tbreak stops the first call of
# fib; info threads, backtrace, print of the argument (its register, then
# by name, typed from the DWARF: fib(n: u64) -> u64), finish, print of the
# return value, continue.  fib(12) = 144 and its caller is main.
fixture = "recursion"
args = ["10", "7", "12"]
session = {
    "script": "docs/examples/break.rtx",
    "exit": 0,
    "stdout_contains": ["stopped at recursion::fib entry (break 1, thread ",
                        "tid", "pid", "name", "* ",
                        "#0  recursion::fib", "#1  recursion::main",
                        "arg0 = 12 (0xc)",
                        "n: u64 = 12",
                        "stopped at recursion::fib exit (finish, thread ",
                        "retval: u64 = 144",
                        "COUNT recursion::fib 465"],
    "stdout_matches": [r"^\* +(\d+) +\1 +recursion\S*$", r"^#1  recursion::main( at .*)?$"],
    "stderr_lines": 1,
}
