# A read from address 8, three traced frames deep: a real SIGSEGV (std's
# guard-page handler sees it, restores the default action, the read runs
# again and the second SIGSEGV kills the program).  rtrace delivers both
# and exits 128 + 11 = 139.
fixture = "exits"
args = ["segv", "100"]
patterns = ["exits::*"]
expect_exit = 139
