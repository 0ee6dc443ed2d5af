#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What a traced call costs with each engine, on a parser-shaped program.

    bench/inline.py [--rtrace build/rtrace] [--runs 5] [--quick]

Builds tests/fixtures/parser.rs (a cursor with tiny is_eof/peek/bump
methods called millions of times) at -O0 and -O3, then for each build:

  native   the program alone
  inline   rtrace record -f 'parser::*' (the default engine)
  trap     rtrace record --engine trap -f 'parser::*', on a smaller input
           (a stop per hit: the full input would take minutes)

and prints, per build, the median wall time of --runs runs, the calls the
program made (its own COUNT lines), the cost per traced call (traced minus
native, divided by calls; a call is an entry and an exit), the trap/inline
ratio of those costs, and the share of events the inline engine recorded
without a stop (from --stats).  Ratios are of figures measured in the same
run: the machine may be shared and noisy.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def build(rustc, opt, out):
    src = os.path.join(TOP, "tests", "fixtures", "parser.rs")
    subprocess.run([rustc, "--edition", "2021", "-C", "opt-level=" + opt, "-g",
                    "-o", out, src], check=True)


def timed(cmd, cwd):
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d): %s" % (" ".join(cmd), p.returncode,
                                                p.stderr.decode(errors="replace")[-500:]))
    return dt, p


def calls_of(out):
    return sum(int(l.split()[-1]) for l in out.decode().splitlines()
               if l.startswith("COUNT ") and "generate" not in l and "parse " not in l)


def median_run(cmd, cwd, runs):
    times, last = [], None
    for _ in range(runs):
        dt, last = timed(cmd, cwd)
        times.append(dt)
    return statistics.median(times), last


def share(err):
    m = re.search(rb"events recorded without a stop \(([0-9.]+) %\)", err)
    return float(m.group(1)) if m else 0.0


def bench_build(opts, exe, tmp):
    big, small = ("400000", "20000") if not opts.quick else ("100000", "4000")
    # record: the cost to the program, not that of the report after it
    rt = [opts.rtrace, "record", "-q", "-o", os.path.join(tmp, "b.data"),
          "--stats", "-f", "parser::*"]
    rows = {}
    for name, size in (("big", big), ("small", small)):
        nat, p = median_run([exe, size], tmp, opts.runs)
        rows[name] = {"native": nat, "calls": calls_of(p.stdout)}
    inl, p = median_run(rt + ["--", exe, big], tmp, opts.runs)
    rows["big"]["inline"], rows["big"]["share"] = inl, share(p.stderr)
    trap, _ = median_run(rt + ["--engine", "trap", "--", exe, small], tmp,
                         max(1, opts.runs // 2))
    rows["small"]["trap"] = trap
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtrace", default=os.path.join(TOP, "build", "rtrace"))
    ap.add_argument("--rustc", default=shutil.which("rustc") or
                    os.path.expanduser("~/.cargo/bin/rustc"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="smaller inputs, 3 runs")
    opts = ap.parse_args()
    if opts.quick:
        opts.runs = 3
    tmp = tempfile.mkdtemp(prefix="rtrace-bench-")
    try:
        print("%-5s %9s %9s %9s %12s %12s %12s %8s %8s" % (
            "build", "calls", "native", "inline", "inline/call", "trap/call",
            "trap/inline", "inline %", "slowdown"))
        for opt in ("0", "3"):
            exe = os.path.join(tmp, "parser-O" + opt)
            build(opts.rustc, opt, exe)
            r = bench_build(opts, exe, tmp)
            b, s = r["big"], r["small"]
            inl = (b["inline"] - b["native"]) / b["calls"] * 1e6
            trap = (s["trap"] - s["native"]) / s["calls"] * 1e6
            print("O%-4s %9d %8.3fs %8.3fs %10.3fµs %10.2fµs %11.0f× %7.2f%% %7.1f×" % (
                opt, b["calls"], b["native"], b["inline"], inl, trap,
                trap / inl if inl > 0 else float("inf"), b["share"],
                b["inline"] / b["native"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("per call: (traced - native) / calls, median of runs; trap on a "
          "smaller input of the same program")


if __name__ == "__main__":
    main()
