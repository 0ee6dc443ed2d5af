#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rtrace on real Rust programs, beside uftrace on the same runs.

    bench/realcrate.py [--rtrace build/rtrace] [--run NAME]... [--runs 3]
                       [--no-uftrace] [--out FILE]

Each run is a real program built offline with cargo from the sources
Debian packages as librust-CRATE-dev (installed with apt-get when
missing, as root): cargo reads every crate from /usr/share/cargo/registry
through a directory source replacement, nothing is downloaded.

  regex-syntax          regex-syntax's lib tests, debug build, ast::parse
  regex-syntax-release  the same tests built --release
  logparse              bench/logparse built --release: 2,000 generated
                        log lines parsed with the regex crate

For each run (all three by default), alternating in each round:

  native   the program alone
  rtrace   rtrace record --stats -f 'CRATE::*'... (the default engine)
  uftrace  uftrace record -P 'CRATE::.*'... (dynamic patching; installed
           with apt-get when missing and run as root)

and prints the median wall time of each over --runs rounds, the median of
the round-by-round ratios of rtrace's to uftrace's (a busy minute slows
the whole round), the same for CPU time (user and system, the program's
and the tracer's: what a busy machine slows less), the probe hits rtrace
counted, the share of them recorded without a ptrace stop, and the
functions whose breakpoints still stopped the program with their stops
(from --stats) and why each of their sites keeps a breakpoint (from rtrace -l), as Markdown: the "real programs"
section of bench/RESULTS.md, which it replaces when every run was
measured (--out FILE writes it elsewhere, - nowhere).  The program's
output under rtrace must be the one it prints alone.  The logs go to a
temporary directory and are removed: a full run writes gigabytes.
"""
import argparse
import importlib.machinery
import importlib.util
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "tools"))
import debcrate  # noqa: E402


def crate_sources(crate):
    """The newest packaged version of @crate, installed when missing."""
    src = debcrate.sources(crate, install=True)
    if not src:
        sys.exit("bench: no %s sources in %s (apt-get install %s)" %
                 (crate, debcrate.REGISTRY, debcrate.package(crate)))
    return src


def cargo_build(name, from_dir, cargo_args):
    """The executable cargo @cargo_args builds from a copy of @from_dir,
    under build/bench/crates, offline."""
    exe, _ = debcrate.build(name, from_dir, cargo_args,
                            os.path.join(TOP, "build", "bench", "crates"))
    if not exe:
        sys.exit("bench: cargo built nothing to run for " + name)
    return exe


def crate_tests(crate, release, filt):
    """The crate's lib tests matching @filt."""
    args = ["test", "--no-run", "--lib"] + (["--release"] if release else [])
    binary = cargo_build(crate + ("-release" if release else ""),
                         crate_sources(crate), args)
    return [binary, filt, "-q"]


def logparse():
    """bench/logparse, built --release against the packaged regex crate
    (with the crates of its default features)."""
    for crate in ("regex", "aho-corasick", "memchr"):
        crate_sources(crate)
    binary = cargo_build("logparse", os.path.join(HERE, "logparse"),
                         ["build", "--release"])
    return [binary, "2000"]


# name: (what it is, how to build it, the crates traced)
RUNS = {
    "regex-syntax": ("regex-syntax's tests (ast::parse), debug",
                     lambda: crate_tests("regex-syntax", False, "ast::parse"),
                     ["regex_syntax"]),
    "regex-syntax-release": ("regex-syntax's tests (ast::parse), --release",
                             lambda: crate_tests("regex-syntax", True,
                                                 "ast::parse"),
                             ["regex_syntax"]),
    "logparse": ("bench/logparse, --release, 2,000 lines",
                 logparse, ["regex", "logparse"]),
}


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, tmp, times, what):
    """Runs @cmd, adds its wall and CPU time (its own and its waited-for
    descendants': what a busy machine slows less) to @times[@what];
    its stdout and stderr."""
    c0, t0 = cpu_of_children(), time.monotonic()
    p = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    times[what].append(time.monotonic() - t0)
    times[what + " cpu"].append(cpu_of_children() - c0)
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d): %s" % (" ".join(cmd), p.returncode,
                                                p.stderr[-500:]))
    return p.stdout, p.stderr


def same_output(a, b):
    """Whether two runs printed the same, but for libtest's timing."""
    strip = lambda t: re.sub(r"finished in [\d.]+s", "", t)
    return strip(a) == strip(b)


def count(pattern, text):
    m = re.search(pattern, text)
    return int(m.group(1).replace(",", "")) if m else None


def stats_of(err):
    """Hits, hits without a stop, and the stopping functions with their
    stops."""
    hits = count(r"stats: ([\d,]+) probe hits", err)
    inline = count(r"([\d,]+) events recorded without a stop", err)
    m = re.search(r"stats: stops at breakpoints in (.*?)(?: \(rtrace -l says"
                  r" why\))?$", err, re.M)
    return hits, inline, m.group(1) if m else ""


def stopping_names(stopped):
    """The function names in --stats' "stops at breakpoints in" list."""
    return [m.group(1) for m in re.finditer(r"(?:^|, )(.+?) \([\d,]+\)",
                                             stopped)]


def why_stops(rtrace, patterns, cmd, names):
    """{function: {"KIND: REASON": sites}} from rtrace -l's breakpoint lines
    of the functions called @names."""
    p = subprocess.run([rtrace, "-l"] + patterns + ["--"] + cmd[:1],
                       capture_output=True, text=True)
    out, func = {}, None
    for line in p.stdout.splitlines():
        m = re.match(r"  0x[0-9a-f]+\s+\d+\s+\d+\s+\d+\s+\S+\s+(.+?)"
                     r"(?:  \(.*\))?$", line)
        b = re.match(r"\s+breakpoint at (.+?) 0x[0-9a-f]+: (.*)$", line)
        if m:
            func = m.group(1)
        elif func in names and b:
            why = out.setdefault(func, {})
            key = "%s: %s" % b.groups()
            why[key] = why.get(key, 0) + 1
    return out


def ensure_uftrace():
    if shutil.which("uftrace"):
        return True
    if os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-qq", "uftrace"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return shutil.which("uftrace") is not None


def one_round(args, cmd, crates, tmp, times, last):
    log = os.path.join(tmp, "run.rtrace")
    filters = [a for c in crates for a in ("-f", c + "::*")]

    native_out, _ = timed(cmd, tmp, times, "native")
    out, err = timed([args.rtrace, "record", "--stats", "-o", log] +
                     filters + ["--"] + cmd, tmp, times, "rtrace")
    os.unlink(log)
    if not same_output(out, native_out):
        sys.exit("bench: %s printed otherwise under rtrace" % cmd[0])
    last.update(zip(("hits", "inline", "stopped"), stats_of(err)))
    last["filters"] = filters
    if args.uftrace:
        data = os.path.join(tmp, "uftrace.data")
        pats = [a for c in crates for a in ("-P", c + "::.*")]
        timed(["uftrace", "record", "-d", data] + pats + cmd, tmp, times,
              "uftrace")
        shutil.rmtree(data, ignore_errors=True)


def median_ratio(a, b):
    """The median of the round-by-round ratios a / b."""
    return statistics.median(x / y for x, y in zip(a, b)) if a and b else 0


def row(name, times, last):
    """The run's line of the table."""
    med = lambda k: ("%.2f s" % statistics.median(times[k])
                     if times[k] else "-")
    hits = last.get("hits") or 0
    share = 100.0 * (last.get("inline") or 0) / hits if hits else 0
    vs = lambda k: ("%.2f" % median_ratio(times["rtrace" + k],
                                          times["uftrace" + k])
                    if times["uftrace"] else "-")
    return "| %s | %s | %.3f %% | %s | %s | %s | %s | %s | %s | %s |" % (
        name, "{:,}".format(hits), share, med("native"), med("rtrace"),
        med("uftrace"), vs(""), med("rtrace cpu"), med("uftrace cpu"),
        vs(" cpu"))


def stops(args, name, cmd, last):
    """The functions that still stopped, with their stops and why their
    sites keep a breakpoint: a line each."""
    stopped = last.get("stopped") or ""
    if not stopped:
        return ["%s: no stop at a breakpoint" % name]
    why = why_stops(args.rtrace, last["filters"], cmd,
                    stopping_names(stopped))
    lines = ["%s: stops at breakpoints in %s" % (name, stopped)]
    for func, sites in why.items():
        lines.append("%s: %s" % (func, ", ".join(
            "%d × %s" % (n, k) for k, n in sites.items())))
    return lines


def bench_run():
    """bench/run as a module: it owns RESULTS.md and its section lines."""
    loader = importlib.machinery.SourceFileLoader("bench_run",
                                                  os.path.join(HERE, "run"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def section_head(title, rtrace, load0):
    """The first lines of a section of RESULTS.md: its title, dated, the
    machine, its load, rtrace's version."""
    run = bench_run()
    env = argparse.Namespace(rtrace=rtrace, rustc="rustc")
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return ["## %s — %s" % (title, now), "",
            "* Machine: " + run.machine_line(),
            "* Load average (1, 5, 15 min): %s at the start, %s at the end"
            % (load0, run.load_line()),
            "* rtrace: " + run.version_line(env)]


def section(args, rows, notes, load0):
    """The "real programs" section of RESULTS.md."""
    return "\n".join(section_head("real programs", args.rtrace, load0) + [
        "* Command: `bench/realcrate.py%s` (medians of %d round%s; rtrace / "
        "uftrace is the median of the round-by-round ratios)"
        % ("" if args.runs == 3 else " --runs %d" % args.runs, args.runs,
           "" if args.runs == 1 else "s"),
        ""] + TABLE_HEAD + rows + [""] + ["* " + n for n in notes]) + "\n"


TABLE_HEAD = [
    "| run | hits | without a stop | native | rtrace | uftrace "
    "| rtrace / uftrace | rtrace CPU | uftrace CPU | rtrace / uftrace CPU |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtrace", default=os.path.join(TOP, "build", "rtrace"))
    ap.add_argument("--run", action="append", choices=list(RUNS),
                    help="one of the runs (all by default); repeatable")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-uftrace", dest="uftrace", action="store_false")
    ap.add_argument("--out", help="results file (default bench/RESULTS.md "
                    "when every run is measured; - for none)")
    args = ap.parse_args()
    args.uftrace = args.uftrace and ensure_uftrace()

    rows, notes, load0 = [], [], bench_run().load_line()
    for name in args.run or list(RUNS):
        what, build, crates = RUNS[name]
        cmd = build()
        times = {k + c: [] for k in ("native", "rtrace", "uftrace")
                 for c in ("", " cpu")}
        last = {}
        with tempfile.TemporaryDirectory(prefix="rtrace-bench-") as tmp:
            for _ in range(args.runs):
                one_round(args, cmd, crates, tmp, times, last)
        rows.append(row(name, times, last))
        notes.append("%s: %s" % (name, what))
        notes += stops(args, name, cmd, last)
    text = section(args, rows, notes, load0)
    print(text)
    out = args.out or ("-" if args.run else os.path.join(HERE, "RESULTS.md"))
    if out != "-":
        bench_run().write_results(out, "real programs", text)

if __name__ == "__main__":
    main()
