# The same program with --no-follow: the forked child and the exec'd
# programs run untraced (the fork child must lose the breakpoints it
# inherited, or it dies of SIGTRAP), and only the parent's calls are
# recorded: the COUNT expectations are the parent's PCOUNT lines
# (reexec::work 300, parent_only 1) and 0 for fork_only and child_only.
fixture = "reexec"
args = ["300", "200", "700"]
patterns = ["reexec::*"]
record_options = ["--no-follow"]
count_only_process = "parent"
