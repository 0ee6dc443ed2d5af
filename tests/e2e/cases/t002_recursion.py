# Deep (5000 levels, non-tail), mutual and tree recursion: every
# activation counts, and no depth limit.
fixture = "recursion"
args = ["5000", "1001", "20"]
patterns = ["recursion::*"]
