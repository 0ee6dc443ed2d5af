# A real log cut to 10 bytes, in the middle of its header: an error (a log
# cut between records is readable, one cut inside the header is not).
fixture = "hotloop"
args = ["1000"]
opt_levels = ["0"]
patterns = ["hotloop::*"]
cut_bytes = 10
expect_fail = {
    "argv": ["report", "--format", "json", "{cut_log}"],
    "exit_nonzero": True,
    "stderr_lines": 1,
    "stderr_contains": ["{cut_log}"],
    "stdout_empty": True,
}
