#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""cargo rtrace on examples/wordcount, offline.

`cargo rtrace test` traces the library's unit tests, the integration test
and the program's (empty) unit tests; the calls of each test must be those
that the crate's construction gives (src/lib.rs, the comment on each test),
in each binary's log and in the merged report.  `cargo rtrace run` must
give count_lines(N) plus top(5), `cargo rtrace bench` three times
count_lines(200).  Then the errors: no Cargo.toml, a build
that fails (cargo's status comes back), no cargo.

Exits 77 (skipped) when cargo is not installed.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
P = "wordcount::"


def count_lines(n):
    """The calls of count_lines(n), from the text's construction."""
    p = n + 9 * (n // 50)
    return {"count_lines": 1, "corpus::line": n, "text::words": n,
            "text::normalize": 16 * p, "text::is_stop_word": 16 * p,
            "counter::Counter::new": 1, "counter::Counter::add_line": n,
            "counter::Counter::insert": min(14 * p, 2048)}


def plus(a, b):
    return {k: a.get(k, 0) + b.get(k, 0) for k in set(a) | set(b)}


TESTS = {
    "tests::normalize_strips_punctuation": {"text::normalize": 2},
    "tests::stop_words": {"text::is_stop_word": 3},
    "tests::a_line_is_one_phrase": {"corpus::line": 1, "text::words": 1,
                                    "text::normalize": 16,
                                    "text::is_stop_word": 16},
    "tests::line_49_is_long": {"corpus::line": 1, "text::words": 1,
                               "text::normalize": 160,
                               "text::is_stop_word": 160},
    "tests::count_ten_lines": count_lines(10),
    "tests::top_words_are_interned": plus(count_lines(2),
                                          {"counter::Counter::top": 1,
                                           "counter::intern": 3}),
    "corpus_of_50_lines": count_lines(50),
}

FAILS = []
# Functions whose every call the compiler inlined (#[inline(always)]
# helpers: Counter::find, same_word...).  rtrace counts them too; the
# construction above counts the calls of the crate's out-of-line
# functions, so a row of calls that were all inlined is left out of the
# comparison unless the construction names it.
INLINED = set()


def crate_calls(functions):
    """The library's functions only: not the tests, not the harness."""
    out = {}
    for f in functions:
        name = f["name"]
        if name.startswith(P) and not name.startswith(P + "tests::") \
                and name != P + "main":
            out[name[len(P):]] = out.get(name[len(P):], 0) + f["calls"]
            if f["calls"] and f.get("inlined_calls") == f["calls"]:
                INLINED.add(name[len(P):])
    return out


def by_test(report):
    groups = {}
    for f in report["functions"]:
        groups.setdefault(f.get("test", "(no test)"), []).append(f)
    return {t: crate_calls(fs) for t, fs in groups.items()}


def compare(what, got, want):
    got = {k: n for k, n in got.items() if k in want or k not in INLINED}
    if got != want:
        FAILS.append(f"{what}: rtrace {sorted(got.items())}, "
                     f"construction {sorted(want.items())}")


def report(rtrace, *args):
    r = subprocess.run([rtrace, "report", "--format", "json", *args],
                       capture_output=True, text=True)
    if r.returncode:
        FAILS.append(f"rtrace report {args}: {r.stderr.strip()}")
        return {"functions": []}
    return json.loads(r.stdout)


def cargo_rtrace(opts, cwd, *args, env=None):
    return subprocess.run([opts.cargo_rtrace, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)


def check_test(opts, crate, env):
    logs = os.path.join(crate, "logs")
    r = cargo_rtrace(opts, crate, "test", "--log-dir", logs, env=env)
    if r.returncode:
        FAILS.append(f"cargo rtrace test: status {r.returncode}\n"
                     f"{r.stderr[-3000:]}")
        return
    files = sorted(glob.glob(os.path.join(logs, "*.data")))
    if len(files) != 3:
        FAILS.append(f"cargo rtrace test wrote {len(files)} logs, not 3 "
                     f"(lib, main, tests/corpus.rs): {files}")
    seen = {}
    for f in files:
        for test, calls in by_test(report(opts.rtrace, "--by", "test",
                                          f)).items():
            if test != "(no test)":
                seen[test] = calls
    for test, want in TESTS.items():
        compare(f"test {test}", seen.get(test, {}), want)
    merged = by_test(report(opts.rtrace, "--by", "test", *files))
    for test, want in TESTS.items():
        compare(f"merged, test {test}", merged.get(test, {}), want)
    total = {}
    for want in TESTS.values():
        total = plus(total, want)
    compare("merged, all tests", crate_calls(report(opts.rtrace, *files)
                                             ["functions"]), total)


def check_run(opts, crate, env):
    logs = os.path.join(crate, "run-logs")
    r = cargo_rtrace(opts, crate, "run", "--log-dir", logs, "--", "120",
                     env=env)
    if r.returncode:
        FAILS.append(f"cargo rtrace run: status {r.returncode}\n"
                     f"{r.stderr[-3000:]}")
        return
    want = plus(count_lines(120), {"counter::Counter::top": 1,
                                   "counter::intern": 5})
    got = crate_calls(report(opts.rtrace, os.path.join(
        logs, "wordcount.data"))["functions"])
    got.pop("arg", None)    # main's helper: not the library
    compare("cargo rtrace run -- 120", got, want)
    check_rerun(opts, crate, env, logs, want)


def check_rerun(opts, crate, env, logs, want):
    """A second run passes rtrace's own options through, keeps the first
    run's log in prev/ and says how to compare the two."""
    log = os.path.join(logs, "wordcount.data")
    prev = os.path.join(logs, "prev", "wordcount.data")
    r = cargo_rtrace(opts, crate, "run", "--log-dir", logs, "--stats",
                     "--sort", "calls", "--count", "--", "120", env=env)
    if r.returncode or "stats: " not in r.stderr or \
            f"rtrace diff {prev} {log}" not in r.stderr:
        FAILS.append(f"cargo rtrace run --stats --sort calls --count: "
                     f"status {r.returncode}\n{r.stderr[-3000:]}")
        return
    now = report(opts.rtrace, log)
    if now.get("mode") != "count":
        FAILS.append(f"--count not passed on: mode {now.get('mode')}")
    got = crate_calls(now["functions"])
    got.pop("arg", None)
    compare("second run, --count", got, want)
    got = crate_calls(report(opts.rtrace, prev)["functions"])
    got.pop("arg", None)
    compare("the previous run's log", got, want)
    r = cargo_rtrace(opts, crate, "run", "-o", "x.data", env=env)
    if r.returncode != 2 or r.stderr.count("\n") != 1:
        FAILS.append(f"cargo rtrace run -o: status {r.returncode}, "
                     f"{r.stderr!r}")


def check_bench(opts, crate, env):
    """benches/throughput.rs runs count_lines(200) three times; cargo
    passes --bench to it, and the bench profile is optimised."""
    logs = os.path.join(crate, "bench-logs")
    r = cargo_rtrace(opts, crate, "bench", "--count", "--bench",
                     "throughput", "--log-dir", logs, env=env)
    if r.returncode:
        FAILS.append(f"cargo rtrace bench: status {r.returncode}\n"
                     f"{r.stderr[-3000:]}")
        return
    files = glob.glob(os.path.join(logs, "throughput-*.data"))
    if len(files) != 1:
        FAILS.append(f"cargo rtrace bench: logs {files}")
        return
    rep = report(opts.rtrace, files[0])
    want = {k: 3 * v for k, v in count_lines(200).items()}
    compare("cargo rtrace bench", crate_calls(rep["functions"]), want)
    if not rep["command"].endswith(" --bench"):
        FAILS.append(f"bench run without --bench: {rep['command']}")


def check_errors(opts, crate, env):
    empty = tempfile.mkdtemp(dir=opts.build)
    r = cargo_rtrace(opts, empty, "test", env=env)
    if r.returncode != 2 or "no Cargo.toml" not in r.stderr:
        FAILS.append(f"no Cargo.toml: status {r.returncode}, {r.stderr!r}")
    broken = os.path.join(opts.build, "wordcount-broken")
    shutil.rmtree(broken, ignore_errors=True)
    shutil.copytree(crate, broken, ignore=shutil.ignore_patterns(
        "target", "logs", "run-logs", "bench-logs"))
    with open(os.path.join(broken, "src/text.rs"), "a") as f:
        f.write("\nfn broken( {\n")
    r = cargo_rtrace(opts, broken, "test", env=env)
    if r.returncode != 101:
        FAILS.append(f"a build that fails: status {r.returncode}, not "
                     f"cargo's 101")
    r = cargo_rtrace(opts, crate, "test",
                     env=dict(env, CARGO="/nonexistent/cargo"))
    if r.returncode != 127 or r.stderr.count("\n") != 1:
        FAILS.append(f"no cargo: status {r.returncode}, {r.stderr!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cargo-rtrace", required=True)
    ap.add_argument("--rtrace", required=True)
    ap.add_argument("--source", required=True, help="examples/wordcount")
    ap.add_argument("--build", required=True)
    opts = ap.parse_args()
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    if not os.access(cargo, os.X_OK):
        print("SKIP: cargo is not installed")
        return SKIP
    os.makedirs(opts.build, exist_ok=True)
    crate = os.path.join(opts.build, "wordcount")
    shutil.rmtree(crate, ignore_errors=True)
    shutil.copytree(opts.source, crate,
                    ignore=shutil.ignore_patterns("target"))
    env = dict(os.environ, CARGO=cargo, RTRACE=opts.rtrace,
               CARGO_TERM_COLOR="never")
    env.pop("CARGO_TARGET_DIR", None)
    check_test(opts, crate, env)
    check_run(opts, crate, env)
    check_bench(opts, crate, env)
    check_errors(opts, crate, env)
    for f in FAILS:
        print("NG " + f)
    print("cargo-rtrace: " + ("OK" if not FAILS else
                              f"{len(FAILS)} problem(s)"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
