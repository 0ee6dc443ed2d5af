#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What an inlined call costs traced, against an out-of-line call's.

    bench/inlined.py [--rtrace build/rtrace] [--runs 5] [--calls N]

Builds bench/inlcall.rs at -O3 -g: the same small function called N times
out of line (inlcall::outl, #[inline(never)]) or inlined (inlcall::inl,
#[inline(always)], one instance left only through its end).  For each, the
native run and `rtrace record -f inlcall::X` (the inline engine: a jump at
the entry and at the end of the instance, a jump at the entry and the
return of the function) alternate, with N calls and with none; the cost
per traced call is the CPU time (the program's and rtrace's) that
tracing adds to N calls beyond what it adds to none (rtrace's start-up
and end), divided by N, median of --runs runs.  Prints both costs and their ratio
(inlined / out of line: the goal is 1.5 at most), and the probes of the
instance from --stats (both must be jumps for the figure to mean the jump
path).
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def cpu_time(cmd, cwd):
    """CPU seconds (user + system) that @cmd and the processes it waited
    for took: the program's, and rtrace's own with it.  Less at the mercy
    of a shared machine's load than wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d): %s" % (
            " ".join(cmd), p.returncode, p.stderr.decode(errors="replace")))
    return (after.ru_utime - before.ru_utime +
            after.ru_stime - before.ru_stime), p


def run_pair(opts, rt, exe, mode, n, tmp):
    """Traced minus native CPU time of @n calls, and the traced stderr."""
    nat, _ = cpu_time([exe, mode, str(n)], tmp)
    tr, p = cpu_time(rt + [exe, mode, str(n)], tmp)
    return tr - nat, p.stderr


def cost_per_call(opts, exe, mode, tmp):
    """Median over runs of what N calls add to a traced run, beyond what
    rtrace's start-up and end add (a run of 0 calls), per call; and the
    traced run's stderr."""
    rt = [opts.rtrace, "record", "-q", "-o", os.path.join(tmp, "b.data"),
          "--stats", "-f", "inlcall::" + mode, "--"]
    costs, err = [], b""
    for _ in range(opts.runs):
        empty, _ = run_pair(opts, rt, exe, mode, 0, tmp)
        full, err = run_pair(opts, rt, exe, mode, opts.calls, tmp)
        costs.append((full - empty) / opts.calls * 1e9)
    return statistics.median(costs), costs, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtrace", default=os.path.join(TOP, "build", "rtrace"))
    ap.add_argument("--rustc", default=shutil.which("rustc") or
                    os.path.expanduser("~/.cargo/bin/rustc"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--calls", type=int, default=2000000)
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rtrace-bench-")
    try:
        exe = os.path.join(tmp, "inlcall")
        subprocess.run([opts.rustc, "--edition", "2021", "-C", "opt-level=3",
                        "-g", "-o", exe, os.path.join(HERE, "inlcall.rs")],
                       check=True)
        outl, outl_runs, _ = cost_per_call(opts, exe, "outl", tmp)
        inl, inl_runs, err = cost_per_call(opts, exe, "inl", tmp)
        m = re.search(rb"inlined calls: .*", err)
        print("per traced call, median of %d runs of %d calls:" %
              (opts.runs, opts.calls))
        print("  out of line  %7.1f ns  (runs: %s)" % (
            outl, " ".join("%.1f" % c for c in outl_runs)))
        print("  inlined      %7.1f ns  (runs: %s)" % (
            inl, " ".join("%.1f" % c for c in inl_runs)))
        print("  inlined / out of line: %.2f× (goal: 1.5× at most)" %
              (inl / outl if outl > 0 else float("inf")))
        if m:
            print("  " + m.group(0).decode())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
