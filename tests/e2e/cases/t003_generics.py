# Monomorphizations: merged by name under legacy mangling, and each
# instance (`generics::describe::<u32>`) on its own in v0 builds.
fixture = "generics"
args = ["1"]
patterns = ["generics::*"]
v0 = True
