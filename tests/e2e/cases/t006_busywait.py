# Total and self times per call, compensated for the tracer's stops:
# parent 5 ms total / 1 ms self, leaf 2 ms / 2 ms.  20 parent calls, so
# that one preemption of the tracer or the tracee on a busy machine moves
# the per-call averages by a twentieth of its length, not a fifth.
fixture = "busywait"
args = ["20"]
patterns = ["busywait::*"]
time_tolerance = 0.10
