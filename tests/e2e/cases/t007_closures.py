# Closures called by iterator adaptors: `closures::main::{{closure}}`
# (legacy, merged) and `closures::main::{closure#N}` (v0, one by one).
fixture = "closures"
args = ["1000"]
patterns = ["closures::*"]
v0 = True
