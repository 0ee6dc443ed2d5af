# A bytecode interpreter whose loop dispatches through a jump table, the
# table's address loaded once before the loop, far from the jmp *reg that
# uses it (-O3): exact counts under both engines, and with the inline
# engine no site keeps a breakpoint: the table is known, so run's entry
# and return are patched and the dispatch is no jump out of run.
fixture = "vm"
args = ["2000"]
patterns = ["vm::*"]
breakpoint_sites = []
inline_share = {"0": 0.99, "3": 0.99}
