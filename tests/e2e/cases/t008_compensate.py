# Overhead compensation against known native costs: rtrace subtracts its
# own cost per stop from the times, and the figures must land on what the
# functions cost without rtrace.  Five leaves (tests/fixtures/compensate.rs):
# tiny (a few ns) and work (a fixed computation, tens of µs), whose fastest
# call the fixture times itself on untraced twins (NATIVE lines; compared
# with the report's min_ns, which no preemption stretches), and
# busy-waits of 0.1 ms, 1 ms and 5 ms (TIME lines: at least that, and
# what they took by the program's own clock).  A sixth, a 0.1 ms
# busy-wait in assembly whose entry keeps a breakpoint while its return
# is patched, checks the calls that begin at a stop and end inline: the
# entry is recorded by the program when it runs again after the stop, so
# none of the stop's cost is theirs, however long the thread waited for
# a CPU (with the entry stamped at the stop, a few calls per run came
# out a millisecond long on a loaded machine).
# Total and self times (fastest call for NATIVE), the median of 5 traced runs, within 5 % or 1 µs,
# whichever is larger.  The twins' figures differ from run to run, hence
# self_counted (stdout compared with numbers masked).
fixture = "compensate"
patterns = ["compensate::traced::*", "compensate_mixed_spin"]
breakpoint_sites = ["compensate_mixed_spin"]
time_tolerance = 0.05
time_floor_ns = 1000
time_runs = 5
self_counted = True
# The mixed site's stops make the stop cost measured, after the run.
stop_cost = True
