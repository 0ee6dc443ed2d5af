# Exact counts through a hot loop: 100000 calls of a tiny leaf, plus the
# two functions around it.
fixture = "hotloop"
args = ["100000"]
patterns = ["hotloop::*"]
# No stop falls inside a call with the jump probes: no stop cost is measured.
stop_cost = False
