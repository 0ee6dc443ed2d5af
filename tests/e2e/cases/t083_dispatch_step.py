# t082's interpreter with its inlined step traced, and helper (out of
# line, so that -l has a line to check): at -O0 step's instances begin at
# the bounds check of the match's jump table, a conditional jump, where
# the inline engine patches the jump -l says it does (before, -l said
# "jump" and the run kept breakpoints: 72 % of t082's events were
# recorded without a stop).  Two interpreters run 64 steps for each of
# 2000 iterations; -O3 unrolls the loop, so that step's entry runs once
# per 8 steps and counts are not exact there.
fixture = "vm"
args = ["2000"]
patterns = ["vm::step", "vm::helper"]
opt_levels = ["0"]
counts = {"vm::step": 2 * 2000 * 64, "vm::helper": 2000 * 64 // 4}
inlined = {"0": ["vm::step"]}
inline_share = {"0": 0.99}
