# A program that forks (the child runs traced code), re-executes itself
# through std::process::Command (the patterns are matched again in the new
# image) and runs /bin/sh (an exec where nothing matches: not an error).
# Every process's calls count: the COUNT lines of the three processes add
# up, and `--by process` gives each process its own.
fixture = "reexec"
args = ["300", "200", "700"]
patterns = ["reexec::*"]
