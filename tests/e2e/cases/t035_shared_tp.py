# A thread made by glibc's clone() without CLONE_SETTLS has its creator's
# thread pointer, by which the recorder of patched sites finds a thread's
# ring.  Both threads call work() at the same time: exact counts in all
# and per thread (`--by thread`), not the new thread's calls put on its
# creator nor events torn between two writers of one ring.
fixture = "adversary"
args = ["sharetp", "20000"]
patterns = ["adversary::*"]
