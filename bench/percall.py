#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What one traced call of a hot leaf costs, beside native and uftrace.

    bench/percall.py [--rtrace build/rtrace] [--before OTHER_RTRACE]
                     [--log FILE] [--runs 5] [--calls 10000000]
                     [--no-threads] [--no-uftrace] [--out FILE]

Per call is measured as bench/run measures it: the wall time of a program
making N calls minus that of the same program making none, over N, so that
start-up, calibration and exit drop out.  In each round, one after the
other:

  native    bench/leafloop.rs (rustc -C opt-level=3) alone
  rtrace    rtrace record -f leafloop::leaf (the default engine: jump
            probes, an entry and a return event per call, no stop)
  before    the same with --before's rtrace (another build, say the one
            before a change), when given
            (both write their log into a temporary directory, or into
            --log: /dev/null leaves the log writes out)
  uftrace   uftrace record -P 'leafloop::leaf' (dynamic patching), when
            installed
  floor     bench/tscfloor.c: two reads of the time stamp counter, what
            any recorder time-stamping an entry and a return pays at least

Each runs the program under bench/peakrss (under the tracer, which
follows the exec), which says the program's own CPU time.  The table
gives, per call and as the median over --runs rounds: the wall time; the
program's CPU time (user and system), which holds what recording costs
the program itself (rtrace's recorder, uftrace's libmcount) but not the
tracer's own work; and the CPU time of program and tracer together,
which a shared machine inflates less than wall time.  Beside each way,
the medians of the round-by-round ratios of rtrace's figures to its (a
busy minute slows a whole round: the ratios measured in it keep their
meaning): rtrace / native, / uftrace, / floor, / --before.

Then the same for tests/fixtures/threads.rs (eight threads calling
threads::leaf, traced with -f threads::leaf): threads PER 0 against
threads 0 0, N the leaf's 8 * PER calls (its 28 more calls are in both
runs and drop out).

Writes the "per call" section of bench/RESULTS.md (--out FILE elsewhere,
- nowhere).  Python 3 standard library only; uses bench/run's helpers.
"""
import argparse
import os
import re
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
    log = args.log or os.path.join(tmp, "run.rtrace")
    t = {"native": []}
    t["rtrace"] = [env.rtrace, "record", "-q", "-o", log, "-f", pattern, "--"]
    if args.before:
        t["before"] = [args.before, "record", "-q", "-o", log, "-f", pattern,
                       "--"]
    if args.uftrace:
        t["uftrace"] = ["uftrace", "record", "-d",
                        os.path.join(tmp, "uftrace.data"), "-P", pattern]
    return t


FIGS = ("wall", "prog", "all")  # per call: wall time, program CPU, all CPU


def program_cpu(path):
    """The CPU time (ns) bench/peakrss saw its program take."""
    with open(path) as f:
        m = re.search(r"^cpu_us (\d+)$", f.read(), re.M)
    if not m:
        raise B.Failure("peakrss wrote no CPU time into " + path)
    return int(m.group(1)) * 1000


def per_call(env, cmd, prog, zero, full, calls, tmp):
    """{figure: ns per call}: the run of @full minus that of @zero.  The
    program runs under bench/peakrss, under the tracer (which follows the
    exec), for the program's own CPU time."""
    cpu = os.path.join(tmp, "cpu")
    r, p = [], []
    for args in (zero, full):
        r.append(B.run(cmd + [env.peakrss, cpu, prog] + args, timeout=1200,
                       cwd=tmp).check())
        p.append(program_cpu(cpu))
        shutil.rmtree(os.path.join(tmp, "uftrace.data"), ignore_errors=True)
    return {"wall": (r[1].wall_ns - r[0].wall_ns) / calls,
            "prog": (p[1] - p[0]) / calls,
            "all": (r[1].cpu_ns - r[0].cpu_ns) / calls}


def floor_ns(env):
    r = B.run([env.floor, "10000000"]).check()
    return float(r.out.split(",")[1].split()[0])


def measure(args, env, prog, zero, full, calls, pattern):
    """{way: {figure: [ns per call, a round each]}}."""
    with tempfile.TemporaryDirectory(prefix="rtrace-percall-") as tmp:
        ways = tools(args, env, tmp, prog, pattern)
        res = {k: {f: [] for f in FIGS} for k in list(ways) + ["floor"]}
        for i in range(args.runs):
            B.log("%s: round %d of %d" % (os.path.basename(prog), i + 1,
                                          args.runs))
            for k, cmd in ways.items():
                got = per_call(env, cmd, prog, zero, full, calls, tmp)
                for f in FIGS:
                    res[k][f].append(got[f])
            t = floor_ns(env)
            for f in FIGS:
                res["floor"][f].append(t)
    return res


def med(v):
    return "%.1f ns" % statistics.median(v) if v else "-"


def ratio(x, y):
    """The median of the round-by-round ratios x / y."""
    r = [a / b for a, b in zip(x, y) if b > 0]
    return "%.2f×" % statistics.median(r) if r else "-"


LABELS = {"native": "native", "rtrace": "rtrace",
          "before": "rtrace --before", "uftrace": "uftrace -P",
          "floor": "2 rdtsc (floor)"}


def rows(name, res):
    """A line per way, with rtrace's figures over its."""
    out = []
    for k in ("native", "rtrace", "before", "uftrace", "floor"):
        if k not in res:
            continue
        mine = k == "rtrace"
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            name, LABELS[k], med(res[k]["wall"]), med(res[k]["prog"]),
            med(res[k]["all"]),
            "" if mine else ratio(res["rtrace"]["wall"], res[k]["wall"]),
            "" if mine or k == "native" else
            ratio(res["rtrace"]["prog"], res[k]["prog"])))
    return out


TABLE_HEAD = [
    "| program | run | wall per call | program CPU per call "
    "| all CPU per call | rtrace / this (wall) | rtrace / this "
    "(program CPU) |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]


def build(args, env, work):
    env.work, env.build = work, os.path.join(TOP, "build")
    os.makedirs(work, exist_ok=True)
    env.floor = B.compile_c(env, "tscfloor")
    env.peakrss = B.compile_c(env, "peakrss")
    env.leafloop = B.compile_rust(env, os.path.join(HERE, "leafloop.rs"),
                                  "leafloop", "3")
    env.threads = B.compile_rust(env, os.path.join(
        TOP, "tests", "fixtures", "threads.rs"), "threads", "3")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtrace", default=os.path.join(TOP, "build", "rtrace"))
    ap.add_argument("--before", help="another rtrace binary, measured in "
                    "the same rounds")
    ap.add_argument("--log", help="rtrace's log file (default: one in a "
                    "temporary directory; /dev/null leaves the log writes "
                    "out of the figures)")
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
    notes.append("wall: the wall time of the whole run (tracer and "
                 "program); program CPU: the traced program's user and "
                 "system time (bench/peakrss), which holds what the "
                 "recorder costs it (rtrace's recorder, uftrace's libmcount), "
                 "not the tracer's own work; all CPU: user and system "
                 "time of tracer and program together")
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
