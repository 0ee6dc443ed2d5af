# --coverage on eight threads (threads.rs): each probe is taken out at its
# first hit, while the other threads may be trapping on it; every function
# the fixture calls shows exactly one call, and "not_called" lists exactly
# the selected functions never called.  MAIN_CALLS = 0 makes from_main
# such a function (the fixture prints COUNT threads::from_main 0).  The
# closures of main are excluded: at -O0 they are five symbols of one name,
# one of which (the fold over from_main's results) runs zero times when
# MAIN_CALLS = 0, so that name would be called and not called at once;
# at -O3 they are inlined.  Repeated: the first hits race between threads.
fixture = "threads"
args = ["12500", "0"]
patterns = ["threads::*"]
exclude = ["threads::main::{{closure}}*"]
record_options = ["--coverage"]
repeat = 3
