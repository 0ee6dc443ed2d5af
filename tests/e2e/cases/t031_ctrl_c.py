# ^C at a terminal: SIGINT to the whole process group (rtrace and the
# program) after 1 s of a loop that would run for days.  The program is
# stopped by its SIGINT (status 130), rtrace exits 130 and prints its
# report on stderr, and the log it kept is readable.  Whether the log says
# "interrupted" (rtrace's own SIGINT handled first) or "exited" (the
# program's death by SIGINT seen first) depends on which of the two
# signals is noticed first: both are right.
fixture = "hotloop"
args = ["1000000000000"]
patterns = ["hotloop::*"]
opt_levels = ["3"]
interrupt = {"signal": "SIGINT", "after": 1.0, "to": "group"}
expect_exit = 130
expect_end = ["interrupted", "exited"]
