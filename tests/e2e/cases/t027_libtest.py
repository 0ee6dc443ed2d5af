# A libtest harness (`rustc --test`, what `cargo test` runs): 43 tests on
# libtest's worker threads.  Counts in all, with the default parallelism
# and with --test-threads=1, and per test (`rtrace report --by test`).
# The program cannot print its own counts (libtest captures test output),
# so they are built here from the fixture's construction (manytests.rs):
#   tests::case_NN (i = NN)   run_case(i): leaf 3i + 1 times, then
#                             helper_even(i) (2 leaf) if i is even,
#                             helper_odd(i) (1 leaf) if odd
#   tests::shared_helper_once   helper_even once              -> 2 leaf
#   tests::shared_helper_twice  helper_even twice, helper_odd -> 5 leaf
#   tests::panics_inside_traced_frames  #[should_panic]: panic_outer ->
#                               panic_middle -> panic_leaf (3 leaf), panics
# Repeated: tests run in parallel, on threads that come and go.
fixture = "manytests"
libtest = True
patterns = ["manytests::*"]
repeat = 3
test_threads_compare = True

_CASES = 40


def _case(i):
    even = i % 2 == 0
    return {
        "manytests::leaf": 3 * i + 1 + (2 if even else 1),
        "manytests::run_case": 1,
        "manytests::helper_even": 1 if even else 0,
        "manytests::helper_odd": 0 if even else 1,
    }


by_test = {"tests::case_%02d" % i: _case(i) for i in range(_CASES)}
by_test["tests::shared_helper_once"] = {
    "manytests::leaf": 2, "manytests::helper_even": 1,
}
by_test["tests::shared_helper_twice"] = {
    "manytests::leaf": 5, "manytests::helper_even": 2, "manytests::helper_odd": 1,
}
by_test["tests::panics_inside_traced_frames"] = {
    "manytests::leaf": 3, "manytests::panic_outer": 1,
    "manytests::panic_middle": 1, "manytests::panic_leaf": 1,
}

counts = {}
for _t in by_test.values():
    for _p, _n in _t.items():
        counts[_p] = counts.get(_p, 0) + _n
