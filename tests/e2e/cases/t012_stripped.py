# A stripped binary: the message says it has no symbols and how to keep
# them (do not strip: e.g. `strip = false` in the Cargo profile).
fixture = "hotloop"
opt_levels = ["3"]
expect_fail = {
    "argv": ["record", "-o", "{tmp}/x.rtrace", "-f", "hotloop::*", "--", "{stripped}"],
    "exit_nonzero": True,
    "stderr_lines": 1,
    "stderr_contains": ["{stripped}"],
    "stderr_matches": [r"symbol", r"strip"],
    "stdout_empty": True,
}
