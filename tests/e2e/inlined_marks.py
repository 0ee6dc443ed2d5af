#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Rows whose inlined calls an entry probe cannot count exactly are marked.

    inlined_marks.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

The fixture tests/fixtures/inlmarks.rs, at -O3, has by construction:

  * settle inlined twice: in settle_zero its instance begins at the head
    of its own loop (rtrace -l must refuse it for that reason), in
    settle_mixed it is probed.  Each caller runs N calls, so the report
    must count N of the 2N (the truth less the refused instance's N),
    mark the row P ("partial") with one site refused and say why, in
    every format, and a merged report of the log twice must keep one
    refused site and double the count;
  * scale inlined into a loop over N elements that LLVM vectorises: the
    row must be marked V ("vectorised") and count no more than PASSES*N
    calls (each pass through the vector body is several).

At -O0 nothing is vectorised nor refused: every count is the truth and
no row is marked.  The -O3 builds of the other fixtures with inlined
calls (inlined, tinyfuncs, vm, generics, closures) have no instance
that rtrace -l calls vectorised.  Exit status 0 when no check is NG.
"""
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from driver import row  # noqa: E402

N, PASSES = 1000, 10
PATTERN = "inlmarks::*"


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def build(opts, fixture, opt):
    try:
        return driver.fixture(opts, fixture, opt)
    except RuntimeError as e:
        row("build %s -O%s" % (fixture, opt), False, str(e))
        return None


def listing(rtrace, exe, pattern):
    r = run([rtrace, "-l", "-f", pattern, "--", exe])
    return r.stdout if r.returncode == 0 else ""


def instances_of(text, fn):
    """The `inlined into` lines under function @fn in an -l listing."""
    lines, inside = [], False
    for line in text.splitlines():
        if not line.startswith("      "):
            inside = line.split()[-2:-1] == [fn] if line.strip() else False
        elif inside and "inlined into" in line:
            lines.append(line.strip())
    return lines


def record(rtrace, exe, tmp, tag):
    log = os.path.join(tmp, tag + ".data")
    r = run([rtrace, "record", "-q", "-o", log, "-f", PATTERN, "--", exe,
             str(N), str(PASSES)])
    row(tag + ": record", r.returncode == 0, r.stderr[-300:])
    return log, driver.counts(r.stdout)


def report(rtrace, logs, fmt="json"):
    r = run([rtrace, "report", "--format", fmt] + logs)
    if fmt != "json":
        return r.stdout
    try:
        return {f["name"]: f for f in json.loads(r.stdout)["functions"]}
    except (ValueError, KeyError):
        return {}


def check_listing(rtrace, exe):
    text = listing(rtrace, exe, PATTERN)
    settle = instances_of(text, "inlmarks::settle")
    zero = [s for s in settle if "settle_zero" in s]
    mixed = [s for s in settle if "settle_mixed" in s]
    row("-l: settle in settle_zero refused as a loop head",
        len(zero) == 1 and "head of a loop" in zero[0], zero)
    row("-l: settle in settle_mixed probed",
        len(mixed) == 1 and ("jump" in mixed[0] or
                             "breakpoint" in mixed[0]),
        mixed)
    scale = instances_of(text, "inlmarks::scale")
    row("-l: scale's instance is vectorised",
        scale != [] and all("vectorised" in s for s in scale), scale)


def check_partial(fns, truth, text, csv):
    s = fns.get("inlmarks::settle", {})
    # settle_mixed's N calls are counted, settle_zero's N are not
    want = truth.get("inlmarks::settle", 0) - N
    row("settle: count = truth less the refused instance's calls",
        s.get("calls") == want, "%s, want %d" % (s.get("calls"), want))
    row("settle: marked partial, 1 site refused, a loop head",
        "partial" in s.get("marks", []) and
        s.get("inlined_sites_refused") == 1 and
        "loop" in (s.get("inlined_refused_reason") or ""),
        (s.get("marks"), s.get("inlined_sites_refused"),
         s.get("inlined_refused_reason")))
    line = [ln for ln in text.splitlines() if ln.endswith(
        "inlmarks::settle [{:,} inlined, 1 site, 1 not probed]".format(want))]
    marks = re.search(r" ([A-Z]*) +inlmarks::settle \[", line[0]) if line \
        else None
    marks = marks.group(1) if marks else ""
    row("text: settle's row says P and 1 not probed",
        len(line) == 1 and "P" in marks and "\nP: partial" in text, line)
    rows = [ln.split(",") for ln in csv.splitlines()]
    col = {name: i for i, name in enumerate(rows[0])} if rows else {}
    got = [r for r in rows if r and r[0] == "inlmarks::settle"]
    row("csv: settle marked P, 1 refused",
        len(got) == 1 and "marks" in col and
        "P" in got[0][col["marks"]] and
        got[0][col.get("inlined_sites_refused", 0)] == "1", got)


def check_vector(fns, truth):
    s = fns.get("inlmarks::scale", {})
    t = truth.get("inlmarks::scale", 0)
    row("scale: marked vectorised",
        "vectorised" in s.get("marks", []) and
        s.get("inlined_sites_vectorised", 0) >= 1,
        (s.get("marks"), s.get("inlined_sites_vectorised")))
    row("scale: count is a lower bound (passes, not calls)",
        PASSES <= s.get("calls", 0) <= t, "%s of %d" % (s.get("calls"), t))
    plain = ["inlmarks::settle_zero", "inlmarks::settle_mixed",
             "inlmarks::scale_all"]
    bad = [n for n in plain if set(fns.get(n, {}).get("marks", [])) &
           {"partial", "vectorised"}]
    row("out-of-line functions: neither P nor V", not bad, bad)


def check_merge(rtrace, log, once):
    twice = report(rtrace, [log, log])
    s1, s2 = once.get("inlmarks::settle", {}), twice.get("inlmarks::settle",
                                                           {})
    row("merged log twice: settle counted twice, 1 site refused, P",
        s2.get("calls") == 2 * s1.get("calls", -1) and
        s2.get("inlined_sites_refused") == 1 and "partial" in
        s2.get("marks", []), (s2.get("calls"), s2.get("inlined_sites_refused"),
                              s2.get("marks")))
    v = twice.get("inlmarks::scale", {})
    row("merged log twice: scale still V",
        "vectorised" in v.get("marks", []), v.get("marks"))


def check_o0(opts, tmp):
    exe = build(opts, "inlmarks", "0")
    if not exe:
        return
    log, truth = record(opts.rtrace, exe, tmp, "O0")
    fns = report(opts.rtrace, [log])
    for name, n in sorted(truth.items()):
        f = fns.get(name, {})
        row("-O0: %s counted exactly, unmarked" % name,
            f.get("calls") == n and not set(f.get("marks", [])) &
            {"partial", "vectorised"}, (f.get("calls"), n, f.get("marks")))


def check_others(opts):
    for fixture in ("inlined", "tinyfuncs", "vm", "generics", "closures"):
        exe = build(opts, fixture, "3")
        if not exe:
            continue
        text = listing(opts.rtrace, exe, fixture + "::*")
        vec = [ln.strip() for ln in text.splitlines() if "vectorised" in ln]
        row("-O3 %s: no instance called vectorised" % fixture,
            text != "" and not vec, vec)


def body(opts, exe, tmp):
    check_listing(opts.rtrace, exe)
    log, truth = record(opts.rtrace, exe, tmp, "O3")
    fns = report(opts.rtrace, [log])
    check_partial(fns, truth, report(opts.rtrace, [log], "text"),
                  report(opts.rtrace, [log], "csv"))
    check_vector(fns, truth)
    check_merge(opts.rtrace, log, fns)
    check_o0(opts, tmp)
    check_others(opts)


if __name__ == "__main__":
    sys.exit(driver.side_main(__doc__, "inlmarks", body, opt="3",
                              with_opts=True))
