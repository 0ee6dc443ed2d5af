#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Golden reports: every view of a few stored logs, byte for byte.

    golden.py check  --rtrace PATH
    golden.py update --rtrace PATH --force
    golden.py record --rtrace PATH --rustc PATH --force

logs/ holds short recordings of the Rust fixtures (tests/fixtures), one
per behaviour the analysis must get right (plain calls, recursion,
threads, panics, tail calls, inlined marks, memory, stacks, libtest,
signals).  expected/ holds what `rtrace report` and `rtrace export` print
for each of them.  A report is a function of its log alone, so `check`
re-runs each view and compares its output with the stored one byte for
byte: a change to the analysis or to a renderer that alters any report
shows as a unified diff.  The reference itself is checked too: the
counts, unwound frames and allocations the fixture printed of its own run
(logs/NAME.out, kept at recording) must be those of the stored JSON
reports.

`update` rewrites expected/ from the rtrace given, for a change of a
report that is intended; `record` records logs/ afresh (the times of a
new recording differ from the old ones, so it updates expected/ too).
Both refuse without --force.

Nothing in the outputs may depend on the machine that runs the check: the
views run with the log's name relative to logs/ as their working
directory, without colour (NO_COLOR) and in the C locale.  The fixtures
are compiled with --remap-path-prefix, so their source paths in the logs
read fixtures/NAME.rs wherever the tree was checked out, and run as
./NAME from a scratch directory, so the recorded command line is the
same too.  No output is normalised after the fact.

`check` also converts each log with `report --save-profile` into the log
`--keep=none` would have recorded (its profile, no events, made by the
same tap a recording uses) and checks that every table view of it (text,
JSON, CSV, --sort/--limit, --raw-times, --by, --instances) prints the
stored output of the full log, byte for byte.
"""

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LOGS = os.path.join(HERE, "logs")
EXPECTED = os.path.join(HERE, "expected")
FIXTURES = os.path.join(HERE, "..", "fixtures")

# name: the fixture, its opt level, libtest or not, its arguments, the
# record options (-f patterns first), the --graph pattern, and the views
# beyond the common ones (the timeline and the Chrome trace, a line or an
# object per call, only where the log is short).  Arguments are small: each
# log stays under ~120 KB (40 bytes an event).  signals records with the
# breakpoint engine: a stop per hit slows the loop the timer interrupts,
# which keeps the log short, and signals arriving at a stop are the case
# that engine must get right.
RUNS = {
    "hotloop": dict(
        fixture="hotloop", opt="0", args=["200"], record=["-f", "hotloop::*"],
        graph="hotloop::middle", views=["replay", "chrome", "html", "svg"]),
    "recursion": dict(
        fixture="recursion", opt="0", args=["40", "31", "8"],
        record=["-f", "recursion::*"], graph="recursion::fib",
        views=["replay", "chrome"]),
    "threads": dict(
        fixture="threads", opt="0", args=["30", "10"],
        record=["-f", "threads::*"], graph="threads::work",
        views=["replay", "by-thread"]),
    "panics": dict(
        fixture="panics", opt="0", args=["3", "2", "4"],
        record=["-f", "panics::*"], graph="panics::*",
        views=["replay", "chrome"]),
    "tailcalls": dict(
        fixture="tailcalls", opt="3", args=["40", "3"],
        record=["-f", "tailcalls::*"], graph="tailcalls::jumper",
        views=["replay", "chrome"]),
    "inlmarks": dict(
        fixture="inlmarks", opt="3", args=["40", "2"],
        record=["-f", "inlmarks::*"], graph="inlmarks::*",
        views=["replay", "chrome", "instances"]),
    "memprof": dict(
        fixture="memprof", opt="0", args=[],
        record=["-f", "memprof::*", "--mem"], graph="memprof::*",
        views=["mem", "mem-json", "heap-series"]),
    "stacks": dict(
        fixture="stacks", opt="0", args=[],
        record=["-f", "stacks::leaf", "--stack", "8"], graph="stacks::leaf",
        views=["replay", "chrome", "stacks", "stacks-json"]),
    "manytests": dict(
        fixture="manytests", opt="0", libtest=True,
        args=["--test-threads=1", "case_0"], record=["-f", "manytests::*"],
        graph="manytests::leaf", views=["by-test"]),
    "signals": dict(
        fixture="signals", opt="0", args=["2", "2", "8"],
        record=["-f", "signals::*", "--engine", "trap"], graph="signals::*",
        views=["replay", "chrome"]),
}

# view: its file suffix and the arguments after the log, {graph} replaced.
COMMON = ["report", "report-json", "report-csv", "report-total", "report-raw",
          "tree", "tree-json", "graph", "graph-json", "folded"]
VIEWS = {
    "report": ("txt", ["report"]),
    "report-json": ("json", ["report", "--format", "json"]),
    "report-csv": ("csv", ["report", "--format", "csv"]),
    "report-total": ("txt", ["report", "--sort", "total", "--limit", "3"]),
    "report-raw": ("txt", ["report", "--raw-times"]),
    "tree": ("txt", ["report", "--tree"]),
    "tree-json": ("json", ["report", "--tree", "--format", "json"]),
    "graph": ("txt", ["report", "--graph", "{graph}"]),
    "graph-json": ("json", ["report", "--graph", "{graph}", "--format", "json"]),
    "replay": ("txt", ["report", "--replay"]),
    "folded": ("folded", ["export", "--format", "folded"]),
    "chrome": ("json", ["export", "--format", "chrome"]),
    "svg": ("svg", ["export", "--format", "svg"]),
    "html": ("html", ["export", "--format", "html"]),
    "by-thread": ("txt", ["report", "--by", "thread"]),
    "by-test": ("txt", ["report", "--by", "test"]),
    "instances": ("txt", ["report", "--instances"]),
    "mem": ("txt", ["report", "--mem"]),
    "mem-json": ("json", ["report", "--mem", "--format", "json"]),
    "heap-series": ("csv", ["report", "--mem", "--heap-series"]),
    "stacks": ("txt", ["report", "--stacks"]),
    "stacks-json": ("json", ["report", "--stacks", "--format", "json"]),
}


def log_name(name):
    return name + ".rtrace"


def views_of(run):
    return COMMON + run["views"]


def expected_path(name, view):
    return os.path.join(EXPECTED, "%s.%s.%s" % (name, view, VIEWS[view][0]))


def environment():
    """The views' environment: nothing of the caller's that could colour
    or localise an output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_")}
    env.update(NO_COLOR="1", LC_ALL="C", LANG="C", TZ="UTC")
    return env


def view_cmd(rtrace, name, view):
    run = RUNS[name]
    sub, *rest = VIEWS[view][1]
    rest = [a.replace("{graph}", run["graph"]) for a in rest]
    return [rtrace, sub] + rest + [log_name(name)]


def render(rtrace, name, view):
    """(output, problem): what the view prints, or why it failed."""
    cmd = view_cmd(rtrace, name, view)
    p = subprocess.run(cmd, cwd=LOGS, env=environment(), timeout=120,
                       stdin=subprocess.DEVNULL, capture_output=True)
    if p.returncode != 0:
        return None, "$ %s\nexit %d\n%s" % (
            " ".join(cmd[1:]), p.returncode, p.stderr.decode(errors="replace"))
    return p.stdout, None


def unified(want, got, path):
    a = want.decode(errors="replace").splitlines(keepends=True)
    b = got.decode(errors="replace").splitlines(keepends=True)
    diff = list(difflib.unified_diff(a, b, path, "rtrace now"))
    if not diff:  # the bytes differ where lines cannot show it
        diff = ["%s: %d bytes stored, %d now\n" % (path, len(want), len(got))]
    return "".join(diff[:200]) + ("...\n" if len(diff) > 200 else "")


def fixture_lines(name):
    """The fixture's own figures of the recorded run (logs/NAME.out): kind
    -> [(function, numbers)]."""
    lines = {}
    with open(os.path.join(LOGS, name + ".out")) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and w[0] in ("COUNT", "UNWOUND", "MEM", "PEAK"):
                n = 5 if w[0] == "MEM" else 1
                lines.setdefault(w[0], []).append(
                    (" ".join(w[1:-n]), [int(x) for x in w[-n:]]))
    return lines


def load_expected(name, view):
    with open(expected_path(name, view)) as f:
        return json.load(f)


def disagreements(name):
    """Where the stored JSON reports differ from what the fixture counted
    itself when the log was recorded: the reference must be right, not
    only unchanged."""
    lines, out = fixture_lines(name), []
    rows = load_expected(name, "report-json")["functions"]

    def total(fn, key):
        return sum(r[key] for r in rows if r["name"] == fn)
    for fn, (n,) in lines.get("COUNT", []):
        # a partial or vectorised row counts passes or reached sites: a
        # lower bound, as its mark says
        low = any({"partial", "vectorised"} & set(r["marks"])
                  for r in rows if r["name"] == fn)
        if total(fn, "calls") != n and not (low and total(fn, "calls") <= n):
            out.append("COUNT %s %d: the report says %d" % (fn, n, total(fn, "calls")))
    for fn, (n,) in lines.get("UNWOUND", []):
        if total(fn, "unwound") != n:
            out.append("UNWOUND %s %d: the report says %d" % (fn, n, total(fn, "unwound")))
    if "MEM" in lines or "PEAK" in lines:
        mem = {r["name"]: r for r in load_expected(name, "mem-json")["memory"]["functions"]}
        keys = ("allocs", "bytes", "frees", "bytes_freed", "live_bytes")
        for fn, nums in lines.get("MEM", []):
            got = [mem.get(fn, {}).get(k) for k in keys]
            if got != nums:
                out.append("MEM %s %s: the report says %s" % (fn, nums, got))
        for fn, (n,) in lines.get("PEAK", []):
            if mem.get(fn, {}).get("bytes_at_peak") != n:
                out.append("PEAK %s %d: the report disagrees" % (fn, n))
    return out


# The views a profile-only log must print as its full log does.
TABLE_VIEWS = ["report", "report-json", "report-csv", "report-total",
               "report-raw", "by-thread", "by-test", "instances"]


def profile_views(opts):
    """(NG count): the table views of each log converted to a profile,
    run in a scratch directory under the log's own name, against the
    stored outputs of the full log."""
    bad = 0
    tmp = tempfile.mkdtemp(prefix="rtrace-golden-profile.")
    try:
        for name in RUNS:
            views = [v for v in views_of(RUNS[name]) if v in TABLE_VIEWS]
            for raw in (False, True):
                where = os.path.join(tmp, "raw" if raw else "plain")
                os.makedirs(where, exist_ok=True)
                cmd = [opts.rtrace, "report"] + (["--raw-times"] if raw else [])
                cmd += ["--save-profile=" + log_name(name),
                        os.path.join(LOGS, log_name(name))]
                p = subprocess.run(cmd, cwd=where, env=environment(),
                                   capture_output=True, timeout=120)
                if p.returncode != 0:
                    bad += 1
                    print("profile of %-33s NG  %s" % (
                        name, p.stderr.decode(errors="replace")))
                    continue
                for view in views:
                    if (view == "report-raw") != raw:
                        continue
                    bad += profile_view(opts, name, view, where)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return bad


def profile_view(opts, name, view, where):
    rel = "profile: " + os.path.relpath(expected_path(name, view), HERE)
    cmd = view_cmd(opts.rtrace, name, view)
    p = subprocess.run(cmd, cwd=where, env=environment(), timeout=120,
                       stdin=subprocess.DEVNULL, capture_output=True)
    with open(expected_path(name, view), "rb") as f:
        want = f.read()
    if p.returncode == 0 and p.stdout == want:
        print("%-44s OK" % rel)
        return 0
    print("%-44s NG" % rel)
    sys.stdout.write(unified(want, p.stdout, rel) if p.returncode == 0 else
                     "exit %d\n%s\n" % (p.returncode,
                                          p.stderr.decode(errors="replace")))
    return 1


def check(opts):
    bad = 0
    for name in RUNS:
        for problem in disagreements(name):
            bad += 1
            print("logs/%s.out  NG  %s" % (name, problem))
    for name in RUNS:
        for view in views_of(RUNS[name]):
            path = expected_path(name, view)
            rel = os.path.relpath(path, HERE)
            got, problem = render(opts.rtrace, name, view)
            try:
                with open(path, "rb") as f:
                    want = f.read()
            except OSError as e:
                want, problem = None, problem or str(e)
            if problem is None and got == want:
                print("%-44s OK" % rel)
                continue
            bad += 1
            print("%-44s NG" % rel)
            sys.stdout.write(problem + "\n" if problem else unified(want, got, rel))
    stray = set(os.listdir(EXPECTED)) - {
        os.path.basename(expected_path(n, v)) for n in RUNS for v in views_of(RUNS[n])}
    for f in sorted(stray):
        bad += 1
        print("expected/%-35s NG  no view writes it (remove it)" % f)
    bad += profile_views(opts)
    print("%d NG" % bad)
    if bad:
        print("A report changed.  If the change is intended, run\n"
              "  tests/golden/golden.py update --rtrace build/rtrace --force\n"
              "and review the diff of tests/golden/expected before committing.")
    return 1 if bad else 0


def update(opts):
    os.makedirs(EXPECTED, exist_ok=True)
    for f in os.listdir(EXPECTED):
        os.unlink(os.path.join(EXPECTED, f))
    for name in RUNS:
        for view in views_of(RUNS[name]):
            got, problem = render(opts.rtrace, name, view)
            if problem:
                print(problem)
                return 1
            with open(expected_path(name, view), "wb") as f:
                f.write(got)
    print("wrote %d files in %s" % (len(os.listdir(EXPECTED)), EXPECTED))
    wrong = [(n, p) for n in RUNS for p in disagreements(n)]
    for name, problem in wrong:
        print("logs/%s.out  NG  %s" % (name, problem))
    return 1 if wrong else 0


def build(opts, run, tmp):
    """Compiles the fixture into @tmp, its paths remapped (see the top)."""
    fixtures = os.path.realpath(FIXTURES)
    exe = os.path.join(tmp, run["fixture"])
    cmd = [opts.rustc, "--edition", "2021", "--crate-name", run["fixture"],
           "-C", "opt-level=" + run["opt"], "-g",
           "--remap-path-prefix=%s=fixtures" % fixtures,
           "-o", exe, os.path.join(fixtures, run["fixture"] + ".rs")]
    cmd[1:1] = ["--test"] if run.get("libtest") else ["--crate-type", "bin"]
    subprocess.run(cmd, check=True)
    return exe


def record(opts):
    os.makedirs(LOGS, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="rtrace-golden.")
    try:
        for name, run in RUNS.items():
            build(opts, run, tmp)
            log = os.path.join(LOGS, log_name(name))
            cmd = [opts.rtrace, "record", "-q", "-o", log] + run["record"]
            cmd += ["--", "./" + run["fixture"]] + run["args"]
            p = subprocess.run(cmd, cwd=tmp, check=True, stdout=subprocess.PIPE)
            with open(os.path.join(LOGS, name + ".out"), "wb") as f:
                f.write(p.stdout)
            print("recorded %s (%d bytes)" % (log, os.path.getsize(log)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return update(opts)


WHY_FORCE = {
    "update": "update rewrites the expected outputs from this build: any "
              "report change, intended or not, becomes the new reference.",
    "record": "record replaces the stored logs: every expected output "
              "changes (new times), and the old logs no longer serve as "
              "the check that logs of the current format still read.",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("check", "update", "record"))
    ap.add_argument("--rtrace", required=True, help="the rtrace binary")
    ap.add_argument("--rustc", default="rustc", help="record: the rustc binary")
    ap.add_argument("--force", action="store_true",
                    help="update, record: really rewrite the stored files")
    opts = ap.parse_args()
    opts.rtrace = os.path.abspath(opts.rtrace)
    if opts.mode != "check" and not opts.force:
        print("golden.py %s: refused without --force: %s Run it only when "
              "that is what you mean, then review `git diff tests/golden`."
              % (opts.mode, WHY_FORCE[opts.mode]), file=sys.stderr)
        return 2
    return {"check": check, "update": update, "record": record}[opts.mode](opts)


if __name__ == "__main__":
    sys.exit(main())
