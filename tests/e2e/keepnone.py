#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""--keep=none: the log holds the profile, made while recording, no events.

    keepnone.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

  counts       live runs (`rtrace --keep=none ./fixture`, the report
               printed from the log) of hotloop, threads and reexec
               (forks and an exec), at -O0 and -O3, with the jump probes
               and with --engine trap: the report of the log has the
               fixture's own COUNT lines, and the program's output and
               exit status are those of a run without rtrace
  libtest      manytests under --keep=none: --by test has, per test, the
               calls the fixture's construction gives (cases/t027)
  size         hotloop with N and 10 N calls: the profile log's size
               stays within 1.5x while the full log grows 5x or more
  call views   tree, replay, export and --stacks of a profile log: one
               line saying it holds a profile only, exit status 2; the
               table, diff and a report of two logs read it;
               --save-profile refuses a profile log and its own log;
               --window refuses a profile log, and changes nothing on a
               full one
  refused      --keep=none with --mem, --stack or a live view: exit 2
  attached     -p on a running busywait with --keep=none: the counts of
               the calls made while attached (leaves 2 per parent, give
               or take the one running)
  interim      SIGUSR1 while recording with --keep=none, and with a
               flight recorder (--keep=1M), prints an interim report with
               the calls so far

Each check prints OK or NG; the exit status is 0 only when none is NG.
"""
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from driver import row  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# fixture: arguments and -f pattern
RUNS = {
    "hotloop": (["30000"], "hotloop::*"),
    "threads": (["3000", "200"], "threads::*"),
    "reexec": (["300", "200", "700"], "reexec::*"),
}


def live(opts, exe, args, pattern, log, extra=()):
    """(rtrace's run, the program's own run): rtrace --keep=none with the
    live report, and the program alone."""
    cmd = [opts.rtrace, "--keep=none", "-o", log, "-f", pattern] + list(extra)
    traced = driver.run(cmd + ["--", exe] + args, timeout=300, cwd=opts.tmp)
    native = driver.run([exe] + args, timeout=300, cwd=opts.tmp)
    return traced, native


def check_counts(opts, name, opt, extra):
    args, pattern = RUNS[name]
    exe = driver.fixture(opts, name, opt)
    log = os.path.join(opts.tmp, "%s-O%s.rtrace" % (name, opt))
    label = "counts: %s -O%s %s" % (name, opt, " ".join(extra) or "jump")
    traced, native = live(opts, exe, args, pattern, log, extra)
    if traced is None or native is None:
        row(label + ": runs", False, "timed out")
        return
    row(label + ": output and exit status untouched",
        traced.stdout == native.stdout and traced.returncode == native.returncode,
        "exit %d / %d" % (traced.returncode, native.returncode))
    row(label + ": the live report is printed",
        "# rtrace report: " in traced.stderr, traced.stderr[-300:]
        if "# rtrace report: " not in traced.stderr else "")
    rep = driver.report_json(opts.rtrace, log)
    want = driver.counts(native.stdout)
    got = driver.calls_by_name(rep) if rep else {}
    wrong = {k: (v, got.get(k)) for k, v in want.items() if got.get(k) != v}
    row(label + ": counts are the fixture's", rep is not None and want and not wrong,
        "want/got %r" % wrong)
    r = driver.run([opts.rtrace, "tree", log])
    row(label + ": no events in the log", r is not None and r.returncode == 2
        and "holds a profile only" in r.stderr, r and r.stderr)


def libtest_cases():
    spec = importlib.util.spec_from_file_location(
        "t027", os.path.join(HERE, "cases", "t027_libtest.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.by_test


def check_libtest(opts):
    b = driver.Build("0", False, libtest=True)
    driver.build_fixture(opts, "manytests", b)
    if b.error:
        row("libtest: build", False, b.error)
        return
    log = os.path.join(opts.tmp, "manytests.rtrace")
    r = driver.run([opts.rtrace, "record", "--keep=none", "-q", "-o", log, "-f",
                    "manytests::*", "--", b.exe, "--test-threads=4"], timeout=300)
    row("libtest: recorded", r is not None and r.returncode == 0,
        r and r.stderr[-300:])
    rep = driver.report_json(opts.rtrace, log, "--by", "test")
    got = {}
    for f in (rep or {}).get("functions", []):
        got.setdefault(f["test"], {})[f["name"]] = f["calls"]
    wrong = []
    for test, want in libtest_cases().items():
        have = {k: v for k, v in got.get(test, {}).items() if k in want}
        if {k: v for k, v in want.items() if v} != have:
            wrong.append((test, want, got.get(test)))
    row("libtest: --by test has each test's calls", rep is not None and not wrong,
        repr(wrong[:2]))


def check_size(opts):
    exe = driver.fixture(opts, "hotloop", "0")
    sizes = {}
    for n in (20000, 200000):
        for keep in ("none", "all"):
            log = os.path.join(opts.tmp, "size-%s-%d.rtrace" % (keep, n))
            r = driver.run([opts.rtrace, "record", "-q", "--keep=" + keep, "-o", log,
                            "-f", "hotloop::*", "--", exe, str(n)], timeout=300)
            sizes[keep, n] = os.path.getsize(log) if r and r.returncode == 0 else None
    ok = None not in sizes.values()
    row("size: --keep=none does not grow with the calls",
        ok and sizes["none", 200000] <= 1.5 * sizes["none", 20000], repr(sizes))
    row("size: the full log does",
        ok and sizes["all", 200000] >= 5 * sizes["all", 20000], repr(sizes))


def check_views(opts):
    exe = driver.fixture(opts, "hotloop", "0")
    log = os.path.join(opts.tmp, "views.rtrace")
    full = os.path.join(opts.tmp, "views-full.rtrace")
    for keep, path in (("none", log), ("all", full)):
        driver.run([opts.rtrace, "record", "-q", "--keep=" + keep, "-o", path,
                    "-f", "hotloop::*", "--", exe, "1000"], timeout=300)
    for view in (["tree"], ["replay"], ["report", "--replay"],
                 ["report", "--graph", "hotloop::*"], ["report", "--stacks"],
                 ["export", "--format", "folded"], ["export", "--format", "chrome"]):
        r = driver.run([opts.rtrace] + view + [log])
        row("call views: %s refused" % " ".join(view),
            r is not None and r.returncode == 2 and r.stdout == ""
            and len(r.stderr.strip().splitlines()) == 1
            and "holds a profile only (recorded with --keep=none)" in r.stderr,
            r and r.stderr)
    d = driver.run([opts.rtrace, "diff", full, log])
    row("call views: diff reads a profile log",
        d is not None and d.returncode == 0 and "hotloop::leaf" in d.stdout,
        d and d.stderr)
    again = os.path.join(opts.tmp, "again.rtrace")
    r = driver.run([opts.rtrace, "report", "--save-profile=" + again, log])
    row("call views: a profile log is not converted again",
        r is not None and r.returncode == 2 and "holds a profile already" in r.stderr
        and not os.path.exists(again), r and r.stderr)
    r = driver.run([opts.rtrace, "report", "--window", log])
    row("call views: --window refuses a profile log",
        r is not None and r.returncode == 2 and r.stdout == ""
        and "keeps no events (recorded with --keep=none)" in r.stderr,
        r and r.stderr)
    w = driver.report_json(opts.rtrace, full, "--window")
    row("call views: --window on a full log gives its table",
        w is not None and driver.calls(w, "hotloop::leaf") == 1000,
        w and driver.calls(w, "hotloop::leaf"))
    size = os.path.getsize(full)
    r = driver.run([opts.rtrace, "report", "--save-profile=" + full, full])
    row("call views: --save-profile never writes over its log",
        r is not None and r.returncode == 2 and os.path.getsize(full) == size,
        r and r.stderr)
    m = driver.report_json(opts.rtrace, log, full)
    row("call views: a report of two logs adds a profile log's calls",
        m is not None and driver.calls(m, "hotloop::leaf") == 2000,
        m and driver.calls(m, "hotloop::leaf"))


def check_refused(opts):
    exe = driver.fixture(opts, "hotloop", "0")
    for extra in (["--mem"], ["--stack", "4"], ["--tree"],
                  ["--export", "folded:" + os.path.join(opts.tmp, "x.folded")]):
        r = driver.run([opts.rtrace, "--keep=none", "-o",
                        os.path.join(opts.tmp, "r.rtrace")] + extra + [exe, "10"])
        row("refused: --keep=none %s" % " ".join(extra),
            r is not None and r.returncode == 2 and "--keep=none" in r.stderr
            and r.stdout == "", r and r.stderr)


def check_attached(opts):
    exe = driver.fixture(opts, "busywait", "0")
    log = os.path.join(opts.tmp, "attach.rtrace")
    prog = subprocess.Popen([exe, "600"], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        r = driver.run([opts.rtrace, "record", "-q", "--keep=none", "-p", str(prog.pid),
                        "--duration", "1s", "-o", log], timeout=120)
    finally:
        code = prog.wait(timeout=120)
    row("attached: the program runs to its end", code == 0, "exit %r" % code)
    rep = driver.report_json(opts.rtrace, log) if r and r.returncode == 0 else None
    p = driver.calls(rep, "busywait::parent") if rep else 0
    leaf = driver.calls(rep, "busywait::leaf") if rep else 0
    row("attached: the counts of the calls made while attached",
        rep is not None and p > 0 and 2 * p - 2 <= leaf <= 2 * p + 2,
        "parent %r leaf %r" % (p, leaf))


def check_interim(opts, keep):
    exe = driver.fixture(opts, "busywait", "0")
    log = os.path.join(opts.tmp, "interim.rtrace")
    prog = subprocess.Popen([opts.rtrace, keep, "-o", log, exe, "300"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.0)
    prog.send_signal(signal.SIGUSR1)
    _, err = prog.communicate(timeout=120)
    at = err.find(b"rtrace: interim report (the trace goes on)")
    report = err[at:err.find(b"rtrace: traced", at)] if at >= 0 else b""
    calls = {}
    for name in (b"parent", b"leaf"):
        m = re.search(rb"^\s*(\d+) .*  busywait::%s\s*$" % name, report, re.M)
        calls[name] = int(m.group(1)) if m else None
    p, leaf = calls[b"parent"], calls[b"leaf"]
    row("interim %s: SIGUSR1 prints the calls so far" % keep,
        prog.returncode == 0 and p is not None and leaf is not None
        and 0 < p < 300 and 2 * p - 2 <= leaf <= 2 * p,
        "parent %r leaf %r" % (p, leaf))


def main():
    opts = driver.options(__doc__.split("\n")[1])
    opts.tmp = tempfile.mkdtemp(prefix="rtrace-e2e-keepnone.")
    try:
        for name in RUNS:
            for opt in ("0", "3"):
                for extra in ((), ("--engine", "trap")):
                    check_counts(opts, name, opt, extra)
        check_libtest(opts)
        check_size(opts)
        check_views(opts)
        check_refused(opts)
        check_attached(opts)
        check_interim(opts, "--keep=none")
        check_interim(opts, "--keep=1M")
    except RuntimeError as e:
        row("build a fixture", False, str(e))
    finally:
        shutil.rmtree(opts.tmp, ignore_errors=True)
    return driver.finish()


if __name__ == "__main__":
    sys.exit(main())
