# `rtrace report` on a file that is not an rtrace log.
expect_fail = {
    "argv": ["report", "--format", "json", "{not_log}"],
    "exit_nonzero": True,
    "stderr_lines": 1,
    "stderr_contains": ["{not_log}"],
    "stdout_empty": True,
}
