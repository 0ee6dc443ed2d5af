# Probes on hard first instructions: a function that is one `ret` byte,
# called through a fn pointer, and functions that begin with a
# RIP-relative instruction (lock incq / lock addq $imm / mov from rip).
fixture = "fnptr"
args = ["1000"]
patterns = ["fnptr::*"]
