#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The log's size per event, and the report's speed, in both formats.

    bench/logsize.py [--rtrace build/rtrace] [--old-rtrace PATH]
                     [--run NAME]... [--runs 5] [--logs DIR] [--out FILE]
    bench/logsize.py --keep [--rtrace build/rtrace] [--run NAME]...
                     [--runs 5] [--out FILE]

Records each run twice, into a log of format version 2 (packed events,
the default) and of version 1 (40-byte records, RTRACE_LOG_VERSION=1),
and prints for each log its size, its bytes per event, and what
`rtrace report` costs to read it: the median CPU time (user and system)
of --runs reports and the events read per CPU second.  --old-rtrace also
times another rtrace binary (an older build) reporting the version 1
log: the speed before the change, on the same log.

  hotloop        tests/fixtures/hotloop.rs at -O0, 1,000,000 leaf calls
  regex-syntax   regex-syntax's lib tests (ast::parse), debug build, as
                 bench/realcrate.py builds them (87.8 M events: recording
                 takes tens of seconds, the version 1 log 3.5 GB)
  wordcount      examples/wordcount (the crate of docs/workflows), debug
                 build, counting 20,000 lines: 679 M events, a 5 GB log
                 (27 GB in format 1), minutes to record and to report;
                 not in --keep's default runs

--keep compares instead a recording with --keep=none (the log holds the
profile made while recording, no events) with a full one, both made in
each of --runs rounds, one after the other: the log's size, the wall
time and the CPU time (user and system, of rtrace and of its program)
of the recording, and the peak RSS (bench/peakrss: the larger of rtrace
and of its program); medians.  It writes the "keep none" section.

The logs go to a temporary directory and are removed, unless --logs DIR
keeps them; a log already in DIR (NAME-v1.rtrace, NAME-v2.rtrace) is used
as it is, not recorded again.  Prints Markdown, the "log size" section of
bench/RESULTS.md, which it replaces when every run was measured.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import realcrate  # noqa: E402  (crate builds, CPU time, RESULTS.md)

CALLS = 1000000


def hotloop(tmp):
    exe = os.path.join(tmp, "hotloop")
    subprocess.run(["rustc", "-C", "opt-level=0", "-g", "-o", exe,
                    os.path.join(TOP, "tests", "fixtures", "hotloop.rs")],
                   check=True)
    return [exe, str(CALLS)], ["hotloop::*"]


def regex_syntax(tmp):
    return (realcrate.crate_tests("regex-syntax", False, "ast::parse"),
            ["regex_syntax::*"])


def wordcount(tmp):
    exe = realcrate.cargo_build("wordcount",
                                os.path.join(TOP, "examples", "wordcount"),
                                ["build", "--bin", "wordcount"])
    return [exe, "20000"], ["wordcount::*"]


RUNS = {"hotloop": hotloop, "regex-syntax": regex_syntax,
        "wordcount": wordcount}
KEEP_RUNS = ["hotloop", "regex-syntax"]


def record(args, cmd, filters, log, version):
    """Records @cmd into @log (unless it is there); its event count."""
    env = dict(os.environ)
    env.pop("RTRACE_LOG_VERSION", None)
    if version == 1:
        env["RTRACE_LOG_VERSION"] = "1"
    if os.path.exists(log):
        return None
    argv = [args.rtrace, "record", "-o", log]
    for f in filters:
        argv += ["-f", f]
    p = subprocess.run(argv + ["--"] + cmd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("bench: recording %s failed: %s" % (log, p.stderr[-500:]))
    return realcrate.count(r"([\d,]+) events? in", p.stderr)


def with_peakrss(tmp):
    """bench/run as a module, its peak RSS tool built in @tmp."""
    bench_run = realcrate.bench_run()
    bench_run.PEAKRSS = os.path.join(tmp, "peakrss")
    if not os.path.exists(bench_run.PEAKRSS):
        subprocess.run(["cc", "-O2", "-o", bench_run.PEAKRSS,
                        os.path.join(HERE, "peakrss.c")], check=True)
    return bench_run


def report_cpu(rtrace, log, runs, tmp):
    """Median CPU seconds and peak RSS (bytes) of @runs reports of @log;
    its event count."""
    bench_run = with_peakrss(tmp)
    cpu, rss, events = [], [], None
    for _ in range(runs):
        r = bench_run.run([rtrace, "report", log], timeout=3600, rss=True)
        if r.status != 0:
            sys.exit("bench: %s report %s failed" % (rtrace, log))
        cpu.append(r.cpu_ns / 1e9)
        rss.append(r.maxrss)
        events = realcrate.count(r"events: ([\d,]+)", r.out)
    return statistics.median(cpu), statistics.median(rss), events


def rows_of(args, name, logs, tmp):
    cmd, filters = RUNS[name](tmp)
    rows = []
    for version in (1, 2):
        log = os.path.join(logs, "%s-v%d.rtrace" % (name, version))
        record(args, cmd, filters, log, version)
        size = os.path.getsize(log)
        readers = [("rtrace", args.rtrace)]
        if version == 1 and args.old_rtrace:
            readers.insert(0, ("older rtrace", args.old_rtrace))
        for who, rtrace in readers:
            cpu, rss, events = report_cpu(rtrace, log, args.runs, tmp)
            rows.append("| %s | %d | %s | %s | %.1f MB | %.2f | %.2f s | "
                        "%.1f M | %.1f MB |" % (
                            name, version, who, "{:,}".format(events),
                            size / 1e6, size / events, cpu,
                            events / cpu / 1e6, rss / 1e6))
    return rows


TABLE_HEAD = [
    "| run | format | read by | events | log size | bytes / event "
    "| report CPU | events / CPU s | report peak RSS |",
    "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]


def section(args, rows, load0):
    run = realcrate.bench_run()
    env = argparse.Namespace(rtrace=args.rtrace, rustc="rustc")
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    notes = ["format 1: 40-byte records (RTRACE_LOG_VERSION=1); format 2: "
             "packed events (the default)",
             "report CPU: median user + system time of %d `rtrace report` "
             "runs; events / CPU s: the log's events over it; report peak "
             "RSS: its median, by bench/peakrss" % args.runs]
    if args.old_rtrace:
        old = subprocess.run([args.old_rtrace, "--version"],
                             stdout=subprocess.PIPE, text=True).stdout
        notes.append("older rtrace: `--old-rtrace %s` (%s)" % (
            args.old_rtrace, old.strip().split("\n")[0]))
    return "\n".join([
        "## log size — " + now, "",
        "* Machine: " + run.machine_line(),
        "* Load average (1, 5, 15 min): %s at the start, %s at the end"
        % (load0, run.load_line()),
        "* rtrace: " + run.version_line(env),
        "* Command: `bench/logsize.py%s`" % (
            "" if args.runs == 5 else " --runs %d" % args.runs),
        ""] + TABLE_HEAD + rows + [""] + ["* " + n for n in notes]) + "\n"


def keep_rounds(args, name, tmp):
    """{keep: [(size, wall s, cpu s, peak RSS bytes)]}: --runs rounds of a
    recording with --keep=all then --keep=none."""
    bench_run = with_peakrss(tmp)
    cmd, filters = RUNS[name](tmp)
    got = {"all": [], "none": []}
    for _ in range(args.runs):
        for keep in got:
            log = os.path.join(tmp, "%s-%s.rtrace" % (name, keep))
            argv = [args.rtrace, "record", "-q", "--keep=" + keep, "-o", log]
            for f in filters:
                argv += ["-f", f]
            r = bench_run.run(argv + ["--"] + cmd, timeout=3600, stdout=False,
                              rss=True)
            if r.status != 0:
                sys.exit("bench: %s failed: %s" % (" ".join(argv), r.err[-500:]))
            got[keep].append((os.path.getsize(log), r.wall_ns / 1e9, r.cpu_ns / 1e9,
                              r.maxrss))
            os.unlink(log)
    return got


def keep_rows(args, name, tmp):
    got = keep_rounds(args, name, tmp)
    med = {k: [statistics.median(x[i] for x in v) for i in range(4)]
           for k, v in got.items()}
    rows = []
    for keep in ("all", "none"):
        size, wall, cpu, rss = med[keep]
        base = med["all"]
        rows.append("| %s | %s | %s | %.2f s | %.2f s | %.1f MB | %s |" % (
            name, keep, "{:,}".format(int(size)), wall, cpu, rss / 1e6,
            "" if keep == "all" else "%.2g× size, %.2f× wall, %.2f× CPU, "
            "%.2f× RSS" % (size / base[0], wall / base[1], cpu / base[2],
                           rss / base[3])))
    return rows


def keep_section(args, rows, load0):
    run = realcrate.bench_run()
    env = argparse.Namespace(rtrace=args.rtrace, rustc="rustc")
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return "\n".join([
        "## keep none — " + now, "",
        "* Machine: " + run.machine_line(),
        "* Load average (1, 5, 15 min): %s at the start, %s at the end"
        % (load0, run.load_line()),
        "* rtrace: " + run.version_line(env),
        "* Command: `bench/logsize.py --keep%s`" % (
            "" if args.runs == 5 else " --runs %d" % args.runs), "",
        "| run | --keep | log bytes | wall | CPU | peak RSS | against all |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |"] + rows + [
        "", "* Medians of %d rounds; in each round the two recordings run "
        "one after the other." % args.runs,
        "* wall and CPU: the recording, rtrace and its program (user + "
        "system); peak RSS: bench/peakrss, the larger of rtrace and its "
        "program."]) + "\n"


def keep_main(args, load0):
    rows = []
    with tempfile.TemporaryDirectory(prefix="rtrace-keep-") as tmp:
        for name in args.run or KEEP_RUNS:
            rows += keep_rows(args, name, tmp)
    text = keep_section(args, rows, load0)
    print(text)
    out = args.out or ("-" if args.run else os.path.join(HERE, "RESULTS.md"))
    if out != "-":
        realcrate.bench_run().write_results(out, "keep none", text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtrace", default=os.path.join(TOP, "build", "rtrace"))
    ap.add_argument("--old-rtrace", help="also time this rtrace reporting "
                    "the version 1 logs")
    ap.add_argument("--run", action="append", choices=list(RUNS))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", action="store_true",
                    help="--keep=none against a full log instead")
    ap.add_argument("--logs", help="keep the logs here (and reuse them)")
    ap.add_argument("--out", help="results file (default bench/RESULTS.md "
                    "when every run is measured; - for none)")
    args = ap.parse_args()
    load0 = realcrate.bench_run().load_line()
    if args.keep:
        keep_main(args, load0)
        return
    logs = args.logs or tempfile.mkdtemp(prefix="rtrace-logsize-")
    os.makedirs(logs, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="rtrace-logsize-") as tmp:
        try:
            for name in args.run or list(RUNS):
                rows += rows_of(args, name, logs, tmp)
        finally:
            if not args.logs:
                shutil.rmtree(logs, ignore_errors=True)
    text = section(args, rows, load0)
    print(text)
    out = args.out or ("-" if args.run else os.path.join(HERE, "RESULTS.md"))
    if out != "-":
        realcrate.bench_run().write_results(out, "log size", text)


if __name__ == "__main__":
    main()
