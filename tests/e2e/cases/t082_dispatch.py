# A bytecode interpreter whose loop dispatches through a jump table, the
# table's address loaded once before the loop, far from the jmp *reg that
# uses it (-O3): exact counts under both engines, and with the inline
# engine no site keeps a breakpoint: the table is known, so run's entry
# and return are patched and the dispatch is no jump out of run.
fixture = "vm"
# 500 programs: every dispatch path many times over; under --engine trap
# each inlined call is a stop, and 2,000 took two minutes of the suite
args = ["500"]
patterns = ["vm::*"]
breakpoint_sites = []
inline_share = {"0": 0.99, "3": 0.99}
# The inlined calls are probed too (step's are t083's subject): at -O3
# one inlined copy of reference's closure begins on a 2-byte jump that
# other branches land after, too short for a jump of its own; it hops to
# a relay in the tail of a nearby instance's region, grown for it, so no
# site keeps a breakpoint there either.
