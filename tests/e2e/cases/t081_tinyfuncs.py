# Functions too small for a jump of their own, called 20,000 times each:
# exact counts, and with the inline engine no site keeps a breakpoint
# (flip's entry and exit share one jump; the exits right after a call's
# return address hop or use their padding), so nearly every event is
# recorded without a stop.  The -O3 code shape is checked: flip is three
# instructions and its ret, low_bit and wrapped return right after their
# call of leaf.
fixture = "tinyfuncs"
args = ["20000"]
patterns = ["tinyfuncs::*"]
breakpoint_sites = []
inline_share = {"0": 0.99, "3": 0.99}
objdump_expect = {
    "tinyfuncs::flip": ["ret"],
    "tinyfuncs::low_bit": ["ret"],
    "tinyfuncs::wrapped": ["ret"],
}
