# rtrace's own --stack on the panicking fixture of t084: the stack
# captured at each entry of the deepest callee names its callers, by
# construction (STACK lines), through every way of patching the inline
# engine has left in place (the exits and inlined instances; entries stop
# for the unwind).
fixture = "unwind"
args = ["30", "stacks"]
patterns = ["unwind::*", "unwind_*"]
record_options = ["--stack", "8"]
