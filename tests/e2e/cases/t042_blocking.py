# Time spent waiting in libc (a 20 ms sleep, a thread::scope's join of a
# thread that sleeps 20 ms, a read of a pipe a thread fills after 20 ms)
# is the function's blocked time, not its self time; a function that
# spins on the clock has self time and no blocked time
# (tests/fixtures/blocking.rs).  Counts are exact, as everywhere: the
# probes of libc's blocking calls must not change them.
fixture = "blocking"
# a blocked time is a wait less the cost of the stops in it: under
# --engine trap each wait ends at a stop whose cost is an estimate, which
# a loaded machine makes overshoot
trap_time_tolerance = 0.20
# the spins' own clock differs from run to run (ONCPU)
self_counted = True
