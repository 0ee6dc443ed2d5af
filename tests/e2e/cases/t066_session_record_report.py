# record FILE keeps the run's log; report reads it back in CSV and JSON
# through the CLI's parser and report code; break + continue N passes
# stops; info breaks, help, replay; quit ends the file; the counts are
# the fixture's.
fixture = "recursion"
args = ["6", "5", "9"]
session = {
    "text": """trace recursion::*
set sort calls
record run.rtrace
break recursion::descend
info breaks
help break
run
continue 3
print arg0
delete
continue
report --format csv
report --limit 1 --format json run.rtrace
replay --depth 1
expect calls recursion::descend == {count:recursion::descend}
quit
echo not reached
""",
    "exit": 0,
    "stdout_contains": ["id   kind     hits     where",
                        "1    break    0        recursion::descend",
                        "break GLOB", "stop at every entry",
                        "stopped at recursion::descend entry (break 1",
                        "arg0 = 3 (0x3)",
                        "name,calls,",
                        "recursion::fib,{count:recursion::fib},",
                        "recursion::descend,{count:recursion::descend},",
                        '"name": "recursion::fib", "calls": {count:recursion::fib},',
                        "recursion::main"],
    "stdout_lacks": ["not reached"],
    "stdout_matches": [r"^COUNT recursion::descend 7$"],
    "files": ["run.rtrace"],
    "stderr_lines": 1,
}
