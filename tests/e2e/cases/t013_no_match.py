# A glob that selects nothing: the message names the glob and the crates
# the program does have, so the user can fix the pattern.  The program is
# run as {prog}, a copy whose path does not contain "hotloop".
fixture = "hotloop"
opt_levels = ["0"]
expect_fail = {
    "argv": ["record", "-o", "{tmp}/x.rtrace", "-f", "nosuchcrate::*", "--", "{prog}"],
    "exit_nonzero": True,
    "stderr_lines": 1,
    "stderr_contains": ["nosuchcrate::*", "hotloop"],
    "stdout_empty": True,
}
