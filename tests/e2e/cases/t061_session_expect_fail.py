# Failing expectations: exit status 1, every failure listed at its line,
# and the count a failing one reports is the fixture's own.
fixture = "recursion"
args = ["20", "9", "11"]
session = {
    "text": """trace recursion::*
run
expect calls recursion::fib == {count:recursion::fib+1}
expect calls recursion::fib == {count:recursion::fib}
expect calls recursion::descend != {count:recursion::descend}
expect calls recursion::is_even < {count:recursion::is_even}
expect calls recursion::is_even <= {count:recursion::is_even}
expect calls recursion::is_odd > {count:recursion::is_odd}
expect calls recursion::is_odd >= {count:recursion::is_odd}
expect called recursion::fib
expect not-called recursion::descend
echo done
""",
    "exit": 1,
    "stdout_contains": ["done"],
    "stderr_lines": 6,
    "stderr_contains": [
        "rtrace: traced",
        "rtrace: {tmp}/session.rtx:3: expect failed: recursion::fib was called "
        "{count:recursion::fib} times (expected == {count:recursion::fib+1})",
        "rtrace: {tmp}/session.rtx:5: expect failed: recursion::descend was called "
        "{count:recursion::descend} times (expected != {count:recursion::descend})",
        "rtrace: {tmp}/session.rtx:6: expect failed: recursion::is_even was called "
        "{count:recursion::is_even} times (expected < {count:recursion::is_even})",
        "rtrace: {tmp}/session.rtx:8: expect failed: recursion::is_odd was called "
        "{count:recursion::is_odd} times (expected > {count:recursion::is_odd})",
        "rtrace: {tmp}/session.rtx:11: expect failed: recursion::descend was called "
        "{count:recursion::descend} times (expected not-called)",
    ],
}
