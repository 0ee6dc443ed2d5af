# A vfork child runs in its parent's memory with the parent thread's
# thread pointer, so the recorder of patched sites writes its events into
# that thread's ring.  The child calls work() itself before it _exits:
# exact counts per process (`--by process`), the child's calls its own,
# not its parent's.
fixture = "adversary"
args = ["vfork", "5000"]
patterns = ["adversary::*"]
