# std::process::exit(3) called three traced frames deep: rtrace exits 3,
# the report says the program exited with 3, and the frames that never
# returned are counted.
fixture = "exits"
args = ["exit", "100"]
patterns = ["exits::*"]
expect_exit = 3
