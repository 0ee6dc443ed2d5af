# Commands that are right in themselves but cannot run where they stand:
# each is said at its line and column, the session goes on, and the exit
# status is 1.  The expect at the end still holds.
fixture = "recursion"
opt_levels = ["0"]
args = ["4", "3", "5"]
session = {
    "text": """trace recursion::*
break recursion::fib
run
print retval
report
delete recursion::nope
delete
finish
finish
continue
backtrace
expect calls recursion::fib == {count:recursion::fib}
echo end
""",
    "exit": 1,
    "stdout_contains": ["stopped at recursion::fib entry (break 1",
                        "stopped at recursion::fib exit (finish",
                        "COUNT recursion::fib {count:recursion::fib}", "end"],
    "stderr_lines": 6,
    "stderr_contains": [
        "session.rtx:4:1: print: retval is known at an exit; recursion::fib is "
        "stopped at its entry (finish first)",
        "session.rtx:5:1: report: the program is stopped at recursion::fib; "
        "continue, kill or detach first",
        "session.rtx:6:1: delete: no break on recursion::nope",
        "session.rtx:9:1: finish: recursion::fib is already at its exit",
        "rtrace: traced",
        "session.rtx:11:1: backtrace: the program is not stopped (break GLOB stops it)",
    ],
}
