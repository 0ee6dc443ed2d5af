# The full stress the issue asks for: eight threads of 100,000 leaf calls
# each (800,028 in all, plus their chunks), overlapping behind a barrier,
# exact counts in all and per thread.  One optimised build, once: the
# smaller t020_threads repeats the race three times in both builds.
fixture = "threads"
args = ["100000", "1000"]
patterns = ["threads::*"]
opt_levels = ["3"]
timeout = 300
