# A program that does not exist: one clean line naming it, non-zero exit.
expect_fail = {
    "argv": ["record", "-o", "{tmp}/x.rtrace", "-f", "hotloop::*", "--", "{missing}"],
    "exit_nonzero": True,
    "stderr_lines": 1,
    "stderr_contains": ["{missing}"],
    "stdout_empty": True,
}
