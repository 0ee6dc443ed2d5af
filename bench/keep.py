#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What a flight recorder (--keep=TIME|SIZE) costs and saves, against the whole log.

    bench/keep.py [--rtrace build/rtrace] [--runs 5] [--calls N] [--out FILE]

Records the hotloop fixture (tests/fixtures/hotloop.rs at -O0, --calls
leaf calls, 5,000,000 by default: 20 M events) with the whole log, with
--keep=16M and with --keep=1s, one of each per round, --runs rounds, and
prints per setting the medians of the log's size, the wall time and the
CPU time of rtrace and the program, and the events the log kept.
Prints Markdown, the "flight recorder" section of bench/RESULTS.md, which
it replaces unless --out says otherwise (- for none).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import realcrate  # noqa: E402  (CPU time, RESULTS.md)

SETTINGS = [("all (the whole log)", []), ("--keep=16M", ["--keep=16M"]),
            ("--keep=1s", ["--keep=1s"])]


def record(args, exe, log, keep, times):
    """One recording; adds its figures to @times."""
    if os.path.exists(log):
        os.unlink(log)
    out, err = realcrate.timed([args.rtrace, "record", "-o", log] + keep +
                               ["-f", "hotloop::*", exe, str(args.calls)],
                               os.path.dirname(log), times, "wall")
    times["size"].append(os.path.getsize(log))
    # --window: the events the log kept, not the whole run's profile
    p = subprocess.run([args.rtrace, "report", "--window", log],
                       stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    times["kept"].append(realcrate.count(r"events: ([\d,]+)", p.stdout))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtrace", default=os.path.join(TOP, "build", "rtrace"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--calls", type=int, default=5000000)
    ap.add_argument("--out", help="results file (default bench/RESULTS.md; "
                    "- for none)")
    args = ap.parse_args()
    load0 = realcrate.bench_run().load_line()
    figures = {name: {"wall": [], "wall cpu": [], "size": [], "kept": []}
               for name, _ in SETTINGS}
    with tempfile.TemporaryDirectory(prefix="rtrace-keep-") as tmp:
        exe = os.path.join(tmp, "hotloop")
        subprocess.run(["rustc", "-C", "opt-level=0", "-g", "-o", exe,
                        os.path.join(TOP, "tests", "fixtures", "hotloop.rs")],
                       check=True)
        for _ in range(args.runs):
            for name, keep in SETTINGS:
                record(args, exe, os.path.join(tmp, "log.rtrace"), keep,
                       figures[name])
    rows = []
    for name, _ in SETTINGS:
        f = figures[name]
        rows.append("| %s | %.1f MB | %s | %.2f s | %.2f s |" % (
            name, statistics.median(f["size"]) / 1e6,
            "{:,}".format(int(statistics.median(f["kept"]))),
            statistics.median(f["wall"]), statistics.median(f["wall cpu"])))
    text = "\n".join(realcrate.section_head("flight recorder", args.rtrace,
                                            load0) + [
        "* Command: `bench/keep.py%s` (medians of %d rounds, the three "
        "settings in turn in each)" % (
            "" if args.runs == 5 else " --runs %d" % args.runs, args.runs),
        "",
        "| log | log size | events in the log | wall time | CPU time |",
        "| --- | ---: | ---: | ---: | ---: |"] + rows + [
        "",
        "* hotloop at -O0, %s leaf calls (%s events recorded); CPU time: "
        "rtrace's and the program's, user and system" % (
            "{:,}".format(args.calls), "{:,}".format(4 * args.calls)),
        ]) + "\n"
    print(text)
    out = args.out or os.path.join(HERE, "RESULTS.md")
    if out != "-":
        realcrate.bench_run().write_results(out, "flight recorder", text)


if __name__ == "__main__":
    main()
