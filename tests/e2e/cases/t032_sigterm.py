# SIGTERM to rtrace alone (kill PID, as a service manager would): rtrace
# stops the program by passing the SIGTERM on (the program dies of it:
# status 143), exits 143, prints its report and keeps a readable log that
# says "interrupted".
fixture = "hotloop"
args = ["1000000000000"]
patterns = ["hotloop::*"]
opt_levels = ["3"]
interrupt = {"signal": "SIGTERM", "after": 1.0, "to": "rtrace"}
expect_exit = 143
expect_end = "interrupted"
