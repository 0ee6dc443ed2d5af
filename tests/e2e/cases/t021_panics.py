# Panics unwinding through traced frames (up to 24 deep), caught with
# catch_unwind on the main thread and in four threads, and one uncaught in
# a thread that is joined: every activation counts, the frames left by
# unwinding are flagged "unwound", and the program's output is untouched.
fixture = "panics"
args = ["30", "4", "20"]
patterns = ["panics::*"]
repeat = 3
