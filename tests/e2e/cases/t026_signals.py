# SIGALRM every 2 ms (setitimer) and SIGUSR1 sent to itself, both with
# handlers that call traced functions, interrupting the traced functions
# of the main loop: signals are delivered, and calls inside handlers count
# once each.  The fixture counts every call with an atomic counter, so the
# figures are exact whatever the timing.  Repeated: timing varies.
fixture = "signals"
args = ["50", "20", "64"]
patterns = ["signals::*"]
repeat = 3
# How many alarms and loop iterations happen depends on the run: the
# expectations are what the program counted in the run under rtrace.
self_counted = True
