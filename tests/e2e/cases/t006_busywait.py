# Total and self times per call, compensated for the tracer's costs:
# parent 5 ms total / 1 ms self, leaf 2 ms / 2 ms, or what the busy-waits
# took by the program's own clock when the machine made them end late
# (tests/fixtures/busywait.rs).  20 parent calls, so that one preemption
# of the tracer at a stop moves the per-call averages by a twentieth of
# its length, not a fifth.  The figures differ from run to run, hence
# self_counted (stdout compared with numbers masked).
fixture = "busywait"
args = ["20"]
patterns = ["busywait::*"]
time_tolerance = 0.10
# Under --engine trap a parent's 1 ms of self time holds the compensation
# of six stops (its entry and exit, two leaves' entries and exits), each
# some 20 µs taken out by estimate: 10 % of 1 ms is two stops' worth of
# error, which two tests at once on two CPUs exceeded (+10.4 %).
trap_time_tolerance = 0.20
self_counted = True
