# With --inlined, calls the compiler inlined count like the others: the same COUNTs at -O0
# (where little is inlined) and -O3 (where these functions exist only as
# inlined instances), including a function that exists only inlined, a
# generic, mutual recursion folded into one function and a closure.  An
# instance left only through its end is timed: nap's calls, each a sleep
# of known length (TIMED).
fixture = "inlined"
args = ["100"]
patterns = ["inlined::*"]
record_options = ["--inlined"]
inlined = {
    "0": ["inlined::is_small", "inlined::weigh", "inlined::nap"],
    "3": ["inlined::is_small", "inlined::weigh", "inlined::classify",
          "inlined::pong", "inlined::main::{{closure}}", "inlined::nap"],
}
# With the inline engine the entries and ends of the inlined calls are
# jumps to trampolines, like the functions' own sites: the fixture's calls
# (a few hundred, most of them inlined at -O3) are recorded without a
# stop.  At -O0 the instances of is_small and nap end on a short
# conditional jump, which no jump can replace: their N + NAPS ends (105 of
# some 1,080 events) stop at a breakpoint.
inline_share = {"0": 0.85, "3": 0.99}
