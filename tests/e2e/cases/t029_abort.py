# std::process::abort() three traced frames deep: the program dies of
# SIGABRT, rtrace exits 128 + 6 = 134 and the report says so.
fixture = "exits"
args = ["abort", "100"]
patterns = ["exits::*"]
expect_exit = 134
