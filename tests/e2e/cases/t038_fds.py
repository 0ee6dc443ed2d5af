# The program sees the same open descriptors under rtrace as natively
# (runtest compares its stdout byte for byte): none of rtrace's own, such
# as one on the program's binary, leaks into it across the exec.
fixture = "fds"
