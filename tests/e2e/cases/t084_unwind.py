# Panics that unwind through functions whose sites the inline engine
# patches in each of its ways (tests/fixtures/unwind.rs): a plain jump, a
# hop to a relay (entry and return), an entry whose moved instructions
# end in the call of the function that panics (its Guard must still be
# dropped), a joined tiny function, a re-aimed two-byte conditional tail
# jump, an inlined instance's entry and exit.  The fixture prints the
# function names of a backtrace taken in the deepest callee: stdout must
# be the native run's, byte for byte, as must the exit status; exact
# counts, and the activations the panics left.  sites_expect checks that
# each way of patching is really there.
fixture = "unwind"
args = ["30"]
patterns = ["unwind::*", "unwind_*"]
_O3 = {
    "unwind::plain": [r"^jump at entry 0x[0-9a-f]+$"],
    "unwind::moved": [r"^jump at entry .*, moves a call$"],
    "unwind::hop_entry": [r"^hop at entry .*, relay at"],
    "unwind_hopper": [r"^hop at entry .*, relay at",
                      r"^hop at return .*, relay at"],
    "unwind::tiny": [r"^jump at entry .*, with the return at"],
    "unwind_pick": [r"^re-aimed branch at tail jump .*, relay at"],
    "unwind::inner": [r"^inlined into unwind::outer .* at 0x[0-9a-f]+: jump"],
    "<unwind::Guard as core::ops::drop::Drop>::drop":
        [r"^inlined into unwind::outer .*: jump; ends at 0x[0-9a-f]+: jump$"],
}
_O0 = {
    "unwind_hopper": [r"^hop at entry .*, relay at",
                      r"^hop at return .*, relay at"],
    "unwind_pick": [r"^re-aimed branch at tail jump .*, relay at"],
    "unwind::inner": [r"^inlined into unwind::outer .*: jump; ends at 0x[0-9a-f]+: jump$"],
}
sites_expect = {"3": _O3, "0": _O0}
