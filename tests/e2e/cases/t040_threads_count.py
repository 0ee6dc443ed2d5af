# --count on eight threads hammering the same functions (threads.rs, as in
# t020_threads): entries only, one stop per call, and still exact counts,
# in all and per thread; the report says "mode": "count".  Repeated: a
# lost or doubled hit between threads is a race.
fixture = "threads"
args = ["12500", "1000"]
patterns = ["threads::*"]
record_options = ["--count"]
repeat = 3
