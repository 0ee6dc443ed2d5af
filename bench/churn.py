#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What rtrace does to a program that starts and ends threads all the time.

    bench/churn.py [--rtrace build/rtrace] [--engine inline|trap|both]
                   [--cycles 200] [--kills 100] [--stops 10] [--launches 10]
                   [--hang 60] [--seed N] [--work spawn|fork] [--sigill]

The program is tests/fixtures/attachee.rs, built here with rustc -O -g:
its `spawn K` starts K threads, 8 at a time, each making 100 calls of
attachee::work (one of attachee::leaf each), and it prints its own counts
when told to quit (with --sigill it first sets a SIGILL handler of its
own, which ends it with status 70: rtrace's trap guard then stays out, and
a thread that meets a breakpoint rtrace left behind dies); its `fork K` forks K child processes one after another,
each making 100 calls and exiting 0 when it counted them.  Their native
rates are measured first.  Then, per program (--work spawn, fork: both by
default) and engine:

  cycles    one program spawning for as long as it takes; rtrace attaches
            (`record -p PID --duration D`, D random in 0.1-0.5 s), detaches,
            and attaches again after a random 0-0.2 s, until --cycles
            detaches are done (a fresh program when one has finished its
            spawn).  Every rtrace must exit 0 (a refusal otherwise), within
            --hang seconds (a freeze otherwise: rtrace is then killed), and
            every program must end as natively, with its own counts exact
  kills     --kills runs: rtrace attached to a spawning program, killed with
            SIGKILL at a random 0.05-1 s; the program must end as natively
  stops     --stops runs: rtrace attached, stopped (SIGSTOP) for 1-4 s,
            continued, then ended with SIGINT: rtrace exits 0, the program
            ends as natively, and the calls reported are at most its own
            (attached for part of the spawn only; a run that reports fewer
            prints what rtrace said about events not recorded)
  launches  --launches runs: `rtrace record -- attachee`, spawning; the
            program's output is unchanged and the calls reported equal its
            own counts

It prints one line per run that went wrong and, as Markdown, a summary per
engine and case.  The goals it was written against: 0 freezes, 0 refusals
and 0 program deaths in 200 cycles and in 100 kills.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


class Work:
    """What the program is told to do, and how it ends when it ends as
    natively: its reply, then its counts (a fork's calls are the
    children's, which count their own)."""

    def __init__(self, verb, k):
        self.verb, self.k = verb, k
        self.order = "%s %d" % (verb, k)
        self.calls = k * 100
        if verb == "spawn":
            self.done = "spawned %d" % k
            self.out = "leaf %d work %d\neintr 0\n" % (self.calls, self.calls)
        else:
            self.done = "forked %d ok %d" % (k, k)
            self.out = "leaf 0 work 0\neintr 0\n"

    def smaller(self):
        return Work(self.verb, self.k // 4)


WORKS = {"spawn": Work("spawn", 20000), "fork": Work("fork", 1500)}


def rustc():
    home = os.path.expanduser("~/.cargo/bin/rustc")
    return home if os.access(home, os.X_OK) else shutil.which("rustc")


def build(out):
    exe = os.path.join(out, "attachee-churn")
    src = os.path.join(TOP, "tests", "fixtures", "attachee.rs")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run([rustc(), "-O", "-g", "-o", exe, src], check=True)
    return exe


class Program:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        line = self.p.stdout.readline().split()
        self.pid = int(line[1]) if len(line) == 2 and line[0] == "ready" else None

    def order(self, cmd):
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()

    def end(self, work):
        """None when the program ended as natively after @work, else how
        it ended."""
        try:
            done = self.p.stdout.readline().strip()
            self.order("quit")
            self.p.stdin.close()
            out = self.p.stdout.read()
            st = self.p.wait(timeout=600)
        except (BrokenPipeError, OSError, subprocess.TimeoutExpired):
            self.p.kill()
            st, done, out = self.p.wait(), "", ""
        want = (work.done, work.out)
        if (done, out) == want and st == 0:
            return None
        return ("exit %d" % st if st >= 0 else "signal %d" % -st) + \
            (" after %r" % done if done != want[0] else "")


def native_rate(exe, work):
    prog = Program([exe, "1"])
    t = time.time()
    prog.order(work.order)
    bad = prog.end(work)
    return None if bad else work.k / (time.time() - t)


def program_cmd(args, exe):
    return [exe, "1"] + (["sigill"] if args.sigill else [])


def rtrace_cmd(args, engine, log, *rest, quiet=True):
    return [args.rtrace, "record"] + (["-q"] if quiet else []) + \
        ["-o", log, "--engine", engine, "-f", "attachee::*"] + list(rest)


def cycles(args, exe, engine, work, log, note):
    res = {"detaches": 0, "programs": 0, "refused": 0, "frozen": 0, "deaths": 0}
    while res["detaches"] < args.cycles and res["frozen"] < 3:
        prog = Program(program_cmd(args, exe))
        prog.order(work.order)
        res["programs"] += 1
        while prog.p.poll() is None and res["detaches"] < args.cycles:
            d = "%.2fs" % random.uniform(0.1, 0.5)
            try:
                r = subprocess.run(rtrace_cmd(args, engine, log, "-p", str(prog.pid),
                                              "--duration", d),
                                   capture_output=True, text=True, timeout=args.hang)
            except subprocess.TimeoutExpired:
                res["frozen"] += 1
                note("%s cycles: rtrace did not detach in %d s (killed)" % (engine, args.hang))
                continue
            if r.returncode != 0:
                if "ended" in r.stderr or "no such process" in r.stderr.lower():
                    break  # the spawn was over and the program gone
                res["refused"] += 1
                note("%s cycles: rtrace exit %d: %s" % (engine, r.returncode,
                                                      r.stderr.strip()[-160:]))
                continue
            res["detaches"] += 1
            time.sleep(random.uniform(0, 0.2))
        bad = prog.end(work)
        if bad:
            res["deaths"] += 1
            note("%s cycles: the program ended with %s" % (engine, bad))
    return res


def attached(args, exe, engine, work, log):
    """A program, rtrace attached to it (it says so), then the spawn."""
    if os.path.exists(log):
        os.unlink(log)
    prog = Program(program_cmd(args, exe))
    rt = subprocess.Popen(rtrace_cmd(args, engine, log, "-p", str(prog.pid), quiet=False),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    while True:
        line = rt.stderr.readline()
        if not line or "attached to process" in line:
            break
    prog.order(work.order)
    return prog, rt


def kills(args, exe, engine, work, log, note):
    deaths = 0
    for _ in range(args.kills):
        prog, rt = attached(args, exe, engine, work, log)
        time.sleep(random.uniform(0.05, 1.0))
        rt.kill()
        rt.wait()
        bad = prog.end(work)
        if bad:
            deaths += 1
            note("%s kills: the program ended with %s" % (engine, bad))
    return deaths


def report_calls(args, log):
    r = subprocess.run([args.rtrace, "report", "--format", "json", log],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()[-160:]
    rep = json.loads(r.stdout)
    return sum(f["calls"] for f in rep["functions"] if f["name"] == "attachee::work"), ""


def stops(args, exe, engine, work, log, note):
    bad = 0
    for _ in range(args.stops):
        prog, rt = attached(args, exe, engine, work, log)
        time.sleep(random.uniform(0.1, 0.5))
        rt.send_signal(signal.SIGSTOP)
        time.sleep(random.uniform(1, 4))
        rt.send_signal(signal.SIGCONT)
        time.sleep(0.2)
        rt.send_signal(signal.SIGINT)
        try:
            rc = rt.wait(timeout=args.hang)
        except subprocess.TimeoutExpired:
            rt.kill()
            rc = "frozen"
        err = rt.stderr.read()
        ended = prog.end(work)
        got, why = report_calls(args, log)
        if rc != 0 or ended or got is None or got > work.calls:
            bad += 1
            note("%s stops: rtrace %s, program %s, calls %s %s" %
                 (engine, rc, ended or "as natively", got, why))
        elif got < work.calls:
            lost = [l for l in err.splitlines() if "not recorded" in l]
            note("%s stops: %d of %d calls reported; rtrace said: %s" %
                 (engine, got, work.calls, lost[-1].strip() if lost else "(nothing)"))
    return bad


def launches(args, exe, engine, work, log, note):
    bad = 0
    work = work.smaller()
    for _ in range(args.launches):
        prog = Program(rtrace_cmd(args, engine, log, "--", *program_cmd(args, exe)))
        prog.order(work.order)
        ended = prog.end(work)
        got, why = report_calls(args, log)
        if ended or got != work.calls:
            bad += 1
            note("%s launches: program %s, calls %s of %d %s" %
                 (engine, ended or "as natively", got, work.calls, why))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--rtrace", default=os.path.join(TOP, "build", "rtrace"))
    ap.add_argument("--engine", default="both", choices=["inline", "trap", "both"])
    ap.add_argument("--cycles", type=int, default=200)
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--stops", type=int, default=10)
    ap.add_argument("--launches", type=int, default=10)
    ap.add_argument("--hang", type=float, default=60)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--sigill", action="store_true",
                    help="the program sets a SIGILL handler of its own (no trap guard)")
    ap.add_argument("--work", action="append", choices=sorted(WORKS),
                    help="spawn (threads), fork (processes); both by default")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    random.seed(seed)
    out = os.path.join(TOP, "build", "bench")
    os.makedirs(out, exist_ok=True)
    exe = build(out)
    works = [WORKS[w] for w in (args.work or ["spawn", "fork"])]
    print("seed %d; natively %s" % (seed, ", ".join(
        "%s %s/s" % (w.verb, "%.0f" % r if r else "(failed)")
        for w, r in ((w, native_rate(exe, w)) for w in works))), flush=True)
    engines = ["inline", "trap"] if args.engine == "both" else [args.engine]
    rows = []
    with tempfile.TemporaryDirectory(prefix="rtrace-churn-") as tmp:
        log = os.path.join(tmp, "churn.rtrace")

        def note(line):
            print(line, flush=True)
        for work in works:
            for engine in engines:
                t = time.time()
                c = cycles(args, exe, engine, work, log, note)
                k = kills(args, exe, engine, work, log, note)
                s = stops(args, exe, engine, work, log, note)
                la = launches(args, exe, engine, work, log, note)
                rows.append((work.verb, engine, c, k, s, la, time.time() - t))
    print("\n| program | engine | detaches (programs) | refused | frozen | deaths in "
          "cycles | kill -9 runs | deaths | stop runs | wrong | launches | wrong | time |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for verb, engine, c, k, s, la, secs in rows:
        print("| %s | %s | %d (%d) | %d | %d | %d | %d | %d | %d | %d | %d | %d | %.0f s |" %
              (verb, engine, c["detaches"], c["programs"], c["refused"], c["frozen"],
               c["deaths"], args.kills, k, args.stops, s, args.launches, la, secs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
