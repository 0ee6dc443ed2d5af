# A program that installs a seccomp filter killing it for memfd_create
# (SECCOMP_RET_KILL_PROCESS, as a sandbox does), then execs itself: rtrace
# re-arms the new image, and must make no system call the filter would
# kill it for.  It reads the filter (as root) and runs it on each call it
# would inject: the event area's memfd_create is refused, the scratch
# area's mmap allowed, so the image keeps breakpoints and every count is
# exact.  (Unprivileged, the filter cannot be read: e2e-adversary checks
# that the program then runs untraced and unharmed.)
fixture = "adversary"
args = ["sandbox", "1000"]
patterns = ["adversary::*"]
