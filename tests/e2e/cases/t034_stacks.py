# --stack: the calling stack captured at every entry of the leaf, unwound
# with the program's unwind tables, matches the call chains of the fixture
# by construction (report --stacks).
fixture = "stacks"
patterns = ["stacks::leaf"]
record_options = ["--stack", "8"]
