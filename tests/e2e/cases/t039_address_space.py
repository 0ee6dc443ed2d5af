# A program that limits its own address space (RLIMIT_AS, `ulimit -v`)
# to 512 MiB, execs itself and reserves 384 MiB, which fits natively.
# rtrace's event area must leave it that room: its rings shrink to fit
# (or the image keeps breakpoints), and the program's output, exit status
# and counts are the native ones.
fixture = "adversary"
args = ["limited", "1000"]
patterns = ["adversary::*"]
