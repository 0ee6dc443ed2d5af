# A malformed command file: every error at its line and column, with a
# suggestion for a near miss, exit status 2, and the program never runs.
fixture = "recursion"
opt_levels = ["0"]
session = {
    "text": """# a file full of mistakes
trace recursion::fibb
brak recursion::fib
run
expect calls recursion::fib =< 3
expect calls recursion::fib == 3x
expect cals recursion::fib == 1
set sortt calls
set limit abc
on recursion::fib entri do print arg0
on recursion::fib entry do print retval
print arg9
export pdf out.pdf
report --srot calls
info thread
backtrace
expect counter nope == 1
echo "unterminated
""",
    "exit": 2,
    "stdout_empty": True,
    "stderr_lines": 16,
    "stderr_contains": [
        "session.rtx:2:7: pattern 'recursion::fibb' matches no function in {fixture} "
        "(did you mean 'recursion::fib'?)",
        "session.rtx:3:1: unknown command 'brak' (did you mean 'break'?)",
        "session.rtx:5:29: unknown comparison '=<'",
        "session.rtx:6:32: '3x' is not a whole number",
        "session.rtx:7:8: unknown expectation 'cals' (did you mean 'calls'?)",
        "session.rtx:8:5: unknown setting 'sortt' (did you mean 'sort'?)",
        "session.rtx:9:11: set limit: --limit needs a positive number, not 'abc'",
        "session.rtx:10:19: unknown place 'entri' (did you mean 'entry'?)",
        "session.rtx:11:34: retval is only known at an exit",
        "session.rtx:12:7: cannot print 'arg9' (did you mean 'arg0'?)",
        "session.rtx:13:8: unknown export format 'pdf'",
        "session.rtx:14:8: unknown option '--srot' (did you mean '--sort'?)",
        "session.rtx:15:6: unknown info topic 'thread' (did you mean 'threads'?)",
        "session.rtx:16:1: backtrace: nothing before it stops the program (break GLOB)",
        "session.rtx:17:16: no action counts 'nope'",
        "session.rtx:18:6: unterminated \"quote\"",
    ],
}
