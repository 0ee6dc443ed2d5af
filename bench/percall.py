#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What one traced call of a hot leaf costs, beside native and uftrace.

    bench/percall.py [--rtrace build/rtrace] [--before OTHER_RTRACE]
                     [--runs 5] [--calls 10000000] [--no-threads]
                     [--no-uftrace] [--out FILE]

Per call is measured as bench/run measures it: the wall time of a program
making N calls minus that of the same program making none, over N, so that
start-up, calibration and exit drop out.  In each round, one after the
other:

  native    bench/leafloop.rs (rustc -C opt-level=3) alone
  rtrace    rtrace record -f leafloop::leaf (the default engine: jump
            probes, an entry and a return event per call, no stop)
  before    the same with --before's rtrace (another build, say the one
            before a change), when given
  uftrace   uftrace record -P 'leafloop::leaf' (dynamic patching), when
            installed
  floor     bench/tscfloor.c: two reads of the time stamp counter, what
            any recorder time-stamping an entry and a return pays at least

The table gives the median over --runs rounds of each figure, in ns per
call, and the medians of the round-by-round ratios rtrace / native,
rtrace / uftrace, rtrace / floor (a busy minute slows a whole round: the
ratios measured in it keep their meaning).  It also gives the CPU time
per call (user and system of the program and of the tracer), which a
shared machine inflates less than wall time.

Then the same for tests/fixtures/threads.rs (eight threads calling
threads::leaf, traced with -f threads::leaf; N is the leaf's calls, all
threads together; threads.rs also calls leaf 28 times more than
8 * PER_THREAD and 1,000 other functions from main, the same in both runs,
so they drop out).

Writes the "per call" section of bench/RESULTS.md (--out FILE elsewhere,
- nowhere).  Python 3 standard library only; uses bench/run's helpers.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
THREADS = 8


sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
from realcrate import bench_run, section_head  # noqa: E402

B = bench_run()


def tools(args, env, tmp, prog, pattern):
    """{name: argv prefix} of the ways the program is run."""
    log = os.path.join(tmp, "run.rtrace")
    t = {"native": []}
    t["rtrace"] = [env.rtrace, "record", "-q", "-o", log, "-f", pattern, "--"]
    if args.before:
        t["before"] = [args.before, "record", "-q", "-o", log, "-f", pattern,
                       "--"]
    if args.uftrace:
        t["uftrace"] = ["uftrace", "record", "-d",
                        os.path.join(tmp, "uftrace.data"), "-P", pattern]
    return t


def per_call(cmd, zero, full, calls, tmp):
    """(wall ns, CPU ns) per call: the run of @full minus that of @zero."""
    r0 = B.run(cmd + zero, timeout=1200, cwd=tmp).check()
    rn = B.run(cmd + full, timeout=1200, cwd=tmp).check()
    shutil.rmtree(os.path.join(tmp, "uftrace.data"), ignore_errors=True)
    return ((rn.wall_ns - r0.wall_ns) / calls, (rn.cpu_ns - r0.cpu_ns) / calls)


def floor_ns(env):
    r = B.run([env.floor, "10000000"]).check()
    return float(r.out.split(",")[1].split()[0])


def measure(args, env, prog, zero, full, calls, pattern):
    """{name: ([wall per call], [CPU per call])} over the rounds."""
    res = {}
    with tempfile.TemporaryDirectory(prefix="rtrace-percall-") as tmp:
        ways = tools(args, env, tmp, prog, pattern)
        for k in ways:
            res[k] = ([], [])
        res["floor"] = ([], [])
        for i in range(args.runs):
            B.log("%s: round %d of %d" % (os.path.basename(prog), i + 1,
                                          args.runs))
            for k, cmd in ways.items():
                w, c = per_call(cmd + [prog], zero, full, calls, tmp)
                res[k][0].append(w)
                res[k][1].append(c)
            f = floor_ns(env)
            res["floor"][0].append(f)
            res["floor"][1].append(f)
    return res


def med(v):
    return "%.1f ns" % statistics.median(v) if v else "-"


def ratio(res, a, b, cpu=False):
    if a not in res or b not in res:
        return "-"
    x, y = res[a][cpu], res[b][cpu]
    r = [p / q for p, q in zip(x, y) if q > 0]
    return "%.2f×" % statistics.median(r) if r else "-"


def rows(name, res):
    out = []
    for k in ("rtrace", "before"):
        if k not in res:
            continue
        label = "rtrace" if k == "rtrace" else "rtrace (--before)"
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, label, med(res[k][0]), med(res["native"][0]),
            med(res["uftrace"][0]) if "uftrace" in res else "-",
            med(res["floor"][0]),
            ratio(res, k, "native"), ratio(res, k, "uftrace"),
            ratio(res, k, "floor"),
            "%s / %s" % (med(res[k][1]),
                         med(res["uftrace"][1]) if "uftrace" in res
                         else "-")))
    if "before" in res:
        out.append("| %s | rtrace / rtrace (--before) | | | | | %s | | | %s |"
                   % (name, ratio(res, "rtrace", "before"),
                      ratio(res, "rtrace", "before", cpu=True)))
    return out


TABLE_HEAD = [
    "| program | tracer | per call | native | uftrace | 2 rdtsc (floor) "
    "| / native | / uftrace | / floor | CPU per call (tracer / uftrace) |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]


def build(args, env, work):
    env.work, env.build = work, os.path.join(TOP, "build")
    os.makedirs(work, exist_ok=True)
    env.floor = B.compile_c(env, "tscfloor")
    env.leafloop = B.compile_rust(env, os.path.join(HERE, "leafloop.rs"),
                                  "leafloop", "3")
    env.threads = B.compile_rust(env, os.path.join(
        TOP, "tests", "fixtures", "threads.rs"), "threads", "3")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtrace", default=os.path.join(TOP, "build", "rtrace"))
    ap.add_argument("--before", help="another rtrace binary, measured in "
                    "the same rounds")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--calls", type=int, default=10000000)
    ap.add_argument("--no-threads", dest="threads", action="store_false")
    ap.add_argument("--no-uftrace", dest="uftrace", action="store_false")
    ap.add_argument("--out", help="results file (default bench/RESULTS.md; "
                    "- for none)")
    args = ap.parse_args()
    args.uftrace = args.uftrace and shutil.which("uftrace") is not None
    env = B.Env()
    env.rtrace = os.path.abspath(args.rtrace)
    env.rustc = B.find_rustc(None)
    build(args, env, os.path.join(TOP, "build", "bench"))

    load0, t0 = B.load_line(), time.monotonic()
    n = args.calls
    table = rows("leafloop", measure(args, env, env.leafloop, ["0"],
                                     [str(n)], n, "leafloop::leaf"))
    notes = ["leafloop: %s calls a run; per call is the run minus the run "
             "with 0 calls, over the calls" % f"{n:,}"]
    if args.threads:
        per = n // THREADS
        table += rows("threads", measure(
            args, env, env.threads, ["0", "0"], [str(per), "0"],
            per * THREADS, "threads::leaf"))
        notes.append("threads: %d threads of %s calls each (threads.rs PER "
                     "0 minus threads.rs 0 0), 2 CPUs shared by them and the "
                     "tracer" % (THREADS, f"{per:,}"))
    if not args.uftrace:
        notes.append("uftrace: not installed, not measured")
    notes.append("2 rdtsc (floor): bench/tscfloor.c, two reads of the time "
                 "stamp counter per turn of a loop, in the same rounds")
    notes.append("ratios: the median of the round-by-round ratios")
    text = "\n".join(section_head("per call", env.rtrace, load0) + [
        "* Command: `bench/percall.py%s` (%d round%s, medians; %d s in all)"
        % (" ".join([""] + sys.argv[1:]), args.runs,
           "" if args.runs == 1 else "s",
           time.monotonic() - t0),
        ""] + TABLE_HEAD + table + [""] + ["* " + x for x in notes]) + "\n"
    print(text)
    out = args.out or os.path.join(HERE, "RESULTS.md")
    if out != "-":
        B.write_results(out, "per call", text)


if __name__ == "__main__":
    try:
        main()
    except B.Failure as e:
        sys.exit("bench: %s" % e)
