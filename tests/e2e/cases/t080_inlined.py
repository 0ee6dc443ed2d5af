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
# jumps to trampolines, like the functions' own sites, or the ends are not
# probed (is_small's at -O0 is a short conditional jump): the fixture's
# calls (a few hundred, most of them inlined at -O3) are recorded without
# a stop.
inline_share = {"0": 0.99, "3": 0.99}
# Under --engine trap each nap has a stop at its entry and one at its end,
# and a stop after a sleep costs more than the calibration measured (the
# CPU woke from idle): the cost taken out overshoots.  Measured on a quiet
# machine, the fastest of 100 naps of 1 ms: 0.58 to 1.16 ms over 75 runs,
# 4 under 0.9 ms.  The floor still tells a timed sleep from an untimed one.
trap_time_tolerance = 0.6
