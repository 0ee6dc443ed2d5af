# Recursion 10,000 frames deep (non-tail), twice, on a thread with a big
# stack: no depth limit, every activation counts, nothing left open.
fixture = "deeprec"
args = ["10000", "2"]
patterns = ["deeprec::*"]
