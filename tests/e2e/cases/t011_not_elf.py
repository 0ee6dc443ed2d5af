# An executable text file (no #! line) is not a program rtrace can trace.
expect_fail = {
    "argv": ["record", "-o", "{tmp}/x.rtrace", "-f", "hotloop::*", "--", "{text_exec}"],
    "exit_nonzero": True,
    "stderr_lines": 1,
    "stderr_contains": ["{text_exec}"],
    "stderr_matches": [r"\bELF\b|exec format"],
    "stdout_empty": True,
}
