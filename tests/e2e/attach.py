#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rtrace end-to-end tests of attaching to a running program.

    attach.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

The fixture tests/fixtures/attachee.rs runs worker threads that make calls
only when told to on stdin ("run K": K calls of work and leaf per worker),
so the calls made while rtrace is attached are known by construction.
Each check prints OK or NG; the exit status is 0 only when none is NG.

  attach    join the idle program (its main thread blocked in read(2) on a
            pipe, its workers waiting), order a batch, detach on SIGINT:
            the report counts exactly the batch; the code bytes after the
            detach equal those before the attach, and no mapping is left;
            the program then runs on, answers the next batch, reads no
            EINTR and exits 0 with the totals of both batches
  duration  --duration ends the tracing by itself, the program runs on
  script    a command file joins the idle program (attach PID), a tbreak
            stops a worker at its first call, the script looks at it and
            detaches: the program finishes the batch untraced, with its
            code as before, and the expect on the calls before the
            detach holds
  crash     rtrace aborts while attached (fault injection, RTRACE_FAULT):
            right after arming, and in the middle of a batch at a probe
            hit, with either engine, and on the thread that makes a
            --keep=none profile: rtrace dies of SIGABRT after saying
            it gave the process back; the code bytes equal those before
            the attach, the batch completes, the program runs on and
            exits 0 with the totals of every batch
  hotpatch  tests/fixtures/hotpatch.rs rewrites a traced function while
            rtrace is attached (with either engine); rtrace detaches on
            SIGINT, exits 0 and warns that the program changed its code;
            the program's new code stays: the function returns 42, not 1,
            and the program exits 0 with the totals of its calls
  killed    rtrace is killed (SIGKILL, no handler runs) at 20 random
            moments once attached, the program's 4 workers in a batch of
            calls: the program finishes the batch and exits 0 with the
            totals of every call, each time (jump engine; its guardian
            turns recording off and puts breakpoints back)
  churn     the same while the program starts and ends threads (`spawn`,
            40,000 threads, 8 at a time): a thread born after rtrace died
            has no recording slot: it claims one itself, with no stop
            (only rtrace gives one at a stop, and only when it launched the
            program), so the program ends as natively with the counts of
            every call; the same with a SIGILL handler of the program's own,
            where no trap guard (trapguard.h) could take a thread that met
            a breakpoint
  cycles    attach, trace 0.2 s and detach, 15 times, while the program
            starts and ends threads (`spawn`): every attach succeeds (a
            thread made by one rtrace had seized is rtrace's already, one
            that ends while rtrace waits for it is let go), and the program
            ends as natively with the counts of every call
  crowd     300 workers, more than the event area has slots, in a batch
            while attached: the program ends as natively; rtrace says some
            threads had no slot and how many events were not recorded; the
            report's work calls are at most those of 256 workers, and the
            calls missing at most the events lost
  silent    rtrace is stopped (SIGSTOP) while the workers are in a long
            batch: their rings fill, they wait 3 s for it, then go on
            without recording; the batch completes while rtrace is still
            stopped, and once it runs again it says how many events were
            not recorded, detaches on SIGINT and exits 0
  errors    a process that does not exist; a process another tracer holds
"""
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from driver import calls, row  # noqa: E402

THREADS = 4


class Program:
    """The fixture, driven through its stdin and stdout."""

    def __init__(self, exe, wrapper=(), args=None):
        args = [str(THREADS)] if args is None else args
        self.p = subprocess.Popen(list(wrapper) + [exe] + args,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        line = self.p.stdout.readline().split()
        self.pid = int(line[1]) if len(line) == 2 and line[0] == "ready" else None

    def ask(self, cmd):
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def finish(self):
        self.p.stdin.write("quit\n")
        self.p.stdin.close()
        out = self.p.stdout.read()
        return self.p.wait(timeout=30), out


def code_and_maps(pid, exe):
    """The bytes of the program's code mappings, and its executable
    mappings (rtrace's scratch area is one; the program's own data mappings
    change with what it does, e.g. malloc arenas)."""
    maps = open("/proc/%d/maps" % pid).read().splitlines()
    code = b""
    with open("/proc/%d/mem" % pid, "rb") as mem:
        for m in maps:
            f = m.split()
            if "x" in f[1] and len(f) > 5 and f[5] == exe:
                lo, hi = (int(x, 16) for x in f[0].split("-"))
                mem.seek(lo)
                code += mem.read(hi - lo)
    return code, sorted(m for m in maps if "x" in m.split()[1])


def wait_attached(rt, timeout=20):
    """rtrace says it is attached on stderr; the line is returned."""
    end = time.time() + timeout
    while time.time() < end:
        line = rt.stderr.readline()
        if not line:
            return None
        if "attached to process" in line:
            return line
    return None


def test_attach(args, exe, tag, tmp):
    prog = Program(exe)
    row(tag + "attach: the program starts", prog.pid is not None)
    code0, maps0 = code_and_maps(prog.pid, exe)
    log = os.path.join(tmp, "attach.rtrace")
    rt = subprocess.Popen([args.rtrace, "record", "-o", log, "-p", str(prog.pid),
                           "-f", "attachee::*"], stderr=subprocess.PIPE, text=True)
    row(tag + "attach: rtrace says it is attached", wait_attached(rt) is not None)
    done = prog.ask("run 1000")
    row(tag + "attach: a batch while attached", done == "batch done %d" % (1000 * THREADS), done)
    rt.send_signal(signal.SIGINT)
    rc = rt.wait(timeout=60)
    rest = rt.stderr.read()
    row(tag + "attach: rtrace detaches on SIGINT and exits 0", rc == 0, "exit %d %s" % (rc, rest[-300:]))
    code1, maps1 = code_and_maps(prog.pid, exe)
    row(tag + "attach: code bytes after detach equal those before", code0 == code1 and len(code0) > 0,
        "%d bytes" % len(code0))
    row(tag + "attach: no executable mapping left behind", maps0 == maps1,
        "%s" % sorted(set(maps1) ^ set(maps0)))
    done = prog.ask("run 200")
    row(tag + "attach: the program runs on after the detach", done == "batch done %d" % (200 * THREADS), done)
    st, out = prog.finish()
    want = "leaf %d work %d\neintr 0\n" % (1200 * THREADS, 1200 * THREADS)
    row(tag + "attach: same output and status as without rtrace", st == 0 and out == want,
        "exit %d, %r" % (st, out))
    rep = driver.report_json(args.rtrace, log)
    row(tag + "attach: the report reads", rep is not None)
    if rep:
        row(tag + "attach: leaf calls in the window (by construction)",
            calls(rep, "attachee::leaf") == 1000 * THREADS, calls(rep, "attachee::leaf"))
        row(tag + "attach: work calls in the window (by construction)",
            calls(rep, "attachee::work") == 1000 * THREADS, calls(rep, "attachee::work"))
        row(tag + "attach: the log says detached", rep.get("end") == "detached", rep.get("end"))


def test_duration(args, exe, tag, tmp):
    prog = Program(exe)
    log = os.path.join(tmp, "duration.rtrace")
    t0 = time.time()
    r = subprocess.run([args.rtrace, "record", "-q", "-o", log, "-p", str(prog.pid),
                        "-f", "attachee::*", "--duration", "1s"],
                       capture_output=True, text=True, timeout=60)
    secs = time.time() - t0
    row(tag + "duration: rtrace ends by itself, exit 0", r.returncode == 0 and secs < 30,
        "exit %d after %.1f s %s" % (r.returncode, secs, r.stderr[-200:]))
    done = prog.ask("run 10")
    st, out = prog.finish()
    row(tag + "duration: the program runs on", done == "batch done %d" % (10 * THREADS) and st == 0,
        "%s, exit %d" % (done, st))


def test_script(args, exe, tag, tmp):
    prog = Program(exe)
    code0, _ = code_and_maps(prog.pid, exe)
    script = os.path.join(tmp, "attach.rtx")
    with open(script, "w") as f:
        f.write("trace attachee::*\ntbreak attachee::work\nattach %d\n"
                "print tid\ninfo threads\ndetach\n"
                "expect calls attachee::work >= 1\necho done\n" % prog.pid)
    rt = subprocess.Popen([args.rtrace, "-x", script], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    row(tag + "script: attach PID joins the program", wait_attached(rt) is not None)
    done = prog.ask("run 3")
    row(tag + "script: the batch ends after the detach", done == "batch done %d" % (3 * THREADS),
        done)
    out, err = rt.communicate(timeout=60)
    row(tag + "script: stopped at the tbreak, detached, exit 0",
        rt.returncode == 0 and "stopped at attachee::work entry (break 1" in out
        and "tid = " in out and out.rstrip().endswith("done"),
        "exit %d %r %r" % (rt.returncode, out[-300:], err[-300:]))
    code1, _ = code_and_maps(prog.pid, exe)
    row(tag + "script: code bytes after the detach equal those before",
        code0 == code1 and len(code0) > 0, "%d bytes" % len(code0))
    st, out = prog.finish()
    want = "leaf %d work %d\neintr 0\n" % (3 * THREADS, 3 * THREADS)
    row(tag + "script: same output and status as without rtrace", st == 0 and out == want,
        "exit %d, %r" % (st, out))


def test_crash(args, exe, tag, tmp, point, engine, extra=()):
    tag += "crash at %s (%s%s): " % (point, engine, "".join(" " + e for e in extra))
    prog = Program(exe)
    code0, maps0 = code_and_maps(prog.pid, exe)
    log = os.path.join(tmp, "crash.rtrace")
    env = dict(os.environ, RTRACE_FAULT=point)
    rt = subprocess.Popen([args.rtrace, "record", "-o", log, "-p", str(prog.pid),
                           "--engine", engine, "-f", "attachee::*"] + list(extra),
                          stderr=subprocess.PIPE, text=True, env=env)
    if point == "attached":
        rt.wait(timeout=60)
    else:
        row(tag + "rtrace says it is attached", wait_attached(rt) is not None)
    done = prog.ask("run 1000")
    row(tag + "the batch completes", done == "batch done %d" % (1000 * THREADS), done)
    try:
        rc = rt.wait(timeout=60)
    except subprocess.TimeoutExpired:
        rt.send_signal(signal.SIGINT)
        rc = rt.wait(timeout=60)
    err = rt.stderr.read()
    row(tag + "rtrace dies of SIGABRT after giving the process back",
        rc == -signal.SIGABRT and "giving the process back" in err,
        "exit %d %r" % (rc, err[-300:]))
    code1, maps1 = code_and_maps(prog.pid, exe)
    row(tag + "code bytes after the crash equal those before",
        code0 == code1 and len(code0) > 0, "%d bytes" % len(code0))
    done = prog.ask("run 200")
    st, out = prog.finish()
    want = "leaf %d work %d\neintr 0\n" % (1200 * THREADS, 1200 * THREADS)
    row(tag + "the program runs on, same output and status as without rtrace",
        done == "batch done %d" % (200 * THREADS) and st == 0 and out == want,
        "%s, exit %d, %r" % (done, st, out))


KILL_BATCH = 3000000
CHURN = 40000


def kill_runs(args, exe, tag, tmp, what, order, runs, prog_args=None):
    """Each run: a fresh program, rtrace attached to it, then the program
    told to @order, and rtrace killed at a random moment of it; the
    program must then end as natively.  Returns what went wrong."""
    died = []
    rng = random.Random(1234)
    for _ in range(runs):
        prog = Program(exe, args=prog_args)
        rt = subprocess.Popen([args.rtrace, "record", "-o",
                               os.path.join(tmp, "killed.rtrace"), "-p",
                               str(prog.pid), "-f", "attachee::*"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
        attached = wait_attached(rt) is not None
        prog.p.stdin.write(order + "\n")
        prog.p.stdin.flush()
        at = rng.uniform(0.05, 0.6)
        time.sleep(at)
        rt.kill()
        rt.wait()
        err = rt.stderr.read().strip()[-200:]
        done = prog.p.stdout.readline().strip()
        try:
            st, out = prog.finish()
        except BrokenPipeError:
            st, out = prog.p.wait(timeout=30), ""
        if not attached or done != what[0] or st != 0 or out != what[1]:
            died.append("at %.2f s: %s, exit %d, %r (%s)" % (at, done, st, out,
                                                            err))
    return died


def test_killed(args, exe, tag, tmp, runs=20):
    """rtrace killed while the workers are in a batch (a kill while rtrace
    still holds the threads to attach is the documented exception)."""
    total = KILL_BATCH * THREADS
    died = kill_runs(args, exe, tag, tmp,
                     ("batch done %d" % total,
                      "leaf %d work %d\neintr 0\n" % (total, total)),
                     "run %d" % KILL_BATCH, runs)
    row(tag + "killed: the program lives through rtrace's kill -9, %d of %d "
        "times" % (runs - len(died), runs), not died, "; ".join(died[:3]))


def test_churn_killed(args, exe, tag, tmp, runs, sigill=False):
    """rtrace killed while the program starts and ends threads; with
    @sigill, a program with a SIGILL handler of its own, where no trap
    guard stands in for rtrace: no new thread may meet a breakpoint."""
    calls = CHURN * 100
    died = kill_runs(args, exe, tag, tmp,
                     ("spawned %d" % CHURN,
                      "leaf %d work %d\neintr 0\n" % (calls, calls)),
                     "spawn %d" % CHURN, runs,
                     [str(THREADS), "sigill"] if sigill else None)
    row(tag + "churn%s: the program starting threads lives through "
        "rtrace's kill -9, %d of %d times" %
        (" (its own SIGILL handler)" if sigill else "", runs - len(died),
         runs), not died, "; ".join(died[:3]))


def test_churn_cycles(args, exe, tag, tmp, cycles=15, spawn=120000):
    prog = Program(exe)
    prog.p.stdin.write("spawn %d\n" % spawn)
    prog.p.stdin.flush()
    failed = []
    for i in range(cycles):
        r = subprocess.run([args.rtrace, "record", "-o",
                            os.path.join(tmp, "cycle.rtrace"), "-p",
                            str(prog.pid), "--duration", "0.2s", "-f",
                            "attachee::*"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        if r.returncode != 0:
            failed.append("cycle %d: exit %d %r" % (i, r.returncode,
                                                    r.stderr.strip()[-200:]))
    row(tag + "cycles: %d attaches to a program starting threads, each "
        "traced and left" % cycles, not failed, "; ".join(failed[:3]))
    done = prog.p.stdout.readline().strip()
    st, out = prog.finish()
    calls = spawn * 100
    row(tag + "cycles: the program ends as natively, with every call",
        done == "spawned %d" % spawn and st == 0 and
        out == "leaf %d work %d\neintr 0\n" % (calls, calls),
        "%s, exit %d, %r" % (done, st, out))


CROWD = 300   # workers: more than the event area's 256 slots
CROWD_BATCH = 1000


def test_crowd(args, exe, tag, tmp):
    """More threads recording at once than there are slots: those with
    none lose their events, counted and said, and never stop."""
    tag += "crowd: "
    prog = Program(exe, args=[str(CROWD)])
    log = os.path.join(tmp, "crowd.rtrace")
    rt = subprocess.Popen([args.rtrace, "record", "-o", log, "-p", str(prog.pid),
                           "-f", "attachee::*"], stderr=subprocess.PIPE, text=True)
    attached = wait_attached(rt) is not None
    done = prog.ask("run %d" % CROWD_BATCH)
    rt.send_signal(signal.SIGINT)
    rc = rt.wait(timeout=120)
    err = rt.stderr.read()
    st, out = prog.finish()
    truth = CROWD * CROWD_BATCH
    row(tag + "the program ends as natively",
        attached and done == "batch done %d" % truth and st == 0 and
        out == "leaf %d work %d\neintr 0\n" % (truth, truth), "%s, exit %d, %r" % (done, st, out))
    lost = re.search(r"rtrace: ([\d,]+) events were not recorded", err)
    lost = int(lost.group(1).replace(",", "")) if lost else 0
    row(tag + "rtrace says the area had no slot for some and how many events were lost",
        rc == 0 and "more threads record at once than its event area has slots" in err
        and lost > 0, "exit %d, %r" % (rc, err[-400:]))
    rep = driver.report_json(args.rtrace, log)
    work = calls(rep, "attachee::work") if rep else -1
    # 44 workers at the least had no slot all along; each call whose entry
    # was lost is one event of the lost ones at the least
    row(tag + "work calls: those of the workers with a slot, the rest lost",
        0 < work <= truth - (CROWD - 256) * CROWD_BATCH and truth - work <= lost,
        "%d of %d, %d events lost" % (work, truth, lost))


def test_silent(args, exe, tag, tmp):
    """The workers get their rings (a thread's first event stops it once,
    which a stopped rtrace would hold), then rtrace stops."""
    tag += "silent: "
    batch = 4 * KILL_BATCH
    prog = Program(exe)
    log = os.path.join(tmp, "silent.rtrace")
    rt = subprocess.Popen([args.rtrace, "record", "--no-inlined", "-o", log,
                           "-p", str(prog.pid), "-f", "attachee::*"],
                          stderr=subprocess.PIPE, text=True)
    row(tag + "rtrace says it is attached", wait_attached(rt) is not None)
    # the batch starts once rtrace has joined, however long that took on
    # a busy machine (it once took longer than the batch): traced, it
    # runs for seconds, and its first 0.3 s give every worker a ring
    prog.p.stdin.write("run %d\n" % batch)
    prog.p.stdin.flush()
    time.sleep(0.3)
    rt.send_signal(signal.SIGSTOP)
    t0 = time.time()
    done = prog.p.stdout.readline().strip()
    took = time.time() - t0
    total = batch * THREADS
    row(tag + "the batch completes while rtrace is stopped",
        done == "batch done %d" % total, "%s after %.1f s" % (done, took))
    rt.send_signal(signal.SIGCONT)
    time.sleep(0.5)
    rt.send_signal(signal.SIGINT)
    rc = rt.wait(timeout=60)
    err = rt.stderr.read()
    row(tag + "rtrace says how many events were not recorded, exits 0",
        rc == 0 and "not recorded while rtrace did not answer" in err,
        "exit %d %r" % (rc, err[-300:]))
    st, out = prog.finish()
    row(tag + "the program exits 0 with the totals of every call",
        st == 0 and out == "leaf %d work %d\neintr 0\n" % (total, total),
        "exit %d, %r" % (st, out))


def test_hotpatch(args, exe, tag, tmp, engine):
    tag += "hotpatch (%s): " % engine
    prog = Program(exe)
    row(tag + "the program starts", prog.pid is not None)
    log = os.path.join(tmp, "hotpatch.rtrace")
    rt = subprocess.Popen([args.rtrace, "record", "-o", log, "-p", str(prog.pid),
                           "--engine", engine, "-f", "hotpatch::*"],
                          stderr=subprocess.PIPE, text=True)
    row(tag + "rtrace says it is attached", wait_attached(rt) is not None)
    got = [prog.ask("call 100"), prog.ask("patch"), prog.ask("call 10")]
    row(tag + "the patch takes while attached", got == ["sum 100", "done", "sum 420"], got)
    rt.send_signal(signal.SIGINT)
    rc = rt.wait(timeout=60)
    err = rt.stderr.read()
    row(tag + "rtrace detaches on SIGINT and exits 0", rc == 0, "exit %d %r" % (rc, err[-300:]))
    warned = [l for l in err.splitlines() if "changed" in l and "hotpatch::target" in l]
    row(tag + "rtrace warns once that the program changed its code", len(warned) == 1,
        " / ".join(warned) or err[-300:])
    try:
        got = prog.ask("call 10")
        st, out = prog.finish()
    except BrokenPipeError:
        got, st, out = "", prog.p.wait(timeout=30), ""
    row(tag + "the program's patch outlives the detach", got == "sum 420", got)
    row(tag + "the program exits 0 with its totals", st == 0 and out == "target 100\ncalls 120\n",
        "exit %d, %r" % (st, out))


def test_errors(args, exe, tmp):
    r = subprocess.run([args.rtrace, "-p", "999999999"], capture_output=True, text=True)
    lines = r.stderr.splitlines()
    row("errors: no such process: one line, exit 2",
        r.returncode == 2 and len(lines) == 1 and "no process" in lines[0], r.stderr.strip())
    strace = "/usr/bin/strace"
    if not os.path.exists(strace):
        row("errors: already traced (SKIP: no strace)", True)
        return
    prog = Program(exe, wrapper=(strace, "-o", os.devnull))
    r = subprocess.run([args.rtrace, "-p", str(prog.pid), "-f", "attachee::*"],
                       capture_output=True, text=True, timeout=60)
    lines = r.stderr.splitlines()
    row("errors: already traced by another tracer: one line, exit 125",
        r.returncode == 125 and len(lines) == 1 and "already traced" in lines[0], r.stderr.strip())
    done = prog.ask("run 5")
    st, _ = prog.finish()
    row("errors: the program was not disturbed", done == "batch done %d" % (5 * THREADS) and st == 0,
        "%s, exit %d" % (done, st))


def main():
    args = driver.options()
    with tempfile.TemporaryDirectory(prefix="rtrace-attach-") as tmp:
        for opt in ("0", "3"):
            exe = driver.fixture(args, "attachee", opt)
            test_attach(args, exe, "O%s " % opt, tmp)
            test_duration(args, exe, "O%s " % opt, tmp)
            test_script(args, exe, "O%s " % opt, tmp)
            for engine in ("inline", "trap"):
                for point in ("attached", "hit:200"):
                    test_crash(args, exe, "O%s " % opt, tmp, point, engine)
            # on the profile's own thread, passed to the tracing one
            test_crash(args, exe, "O%s " % opt, tmp, "analysed:3", "inline",
                       ["--keep=none"])
            for engine in ("inline", "trap"):
                test_hotpatch(args, driver.fixture(args, "hotpatch", opt), "O%s " % opt, tmp, engine)
            test_killed(args, exe, "O%s " % opt, tmp, runs=20 if opt == "3" else 5)
            test_churn_killed(args, exe, "O%s " % opt, tmp, runs=6 if opt == "3" else 3)
            if opt == "3":
                test_churn_killed(args, exe, "O%s " % opt, tmp, runs=6, sigill=True)
            test_churn_cycles(args, exe, "O%s " % opt, tmp)
            test_silent(args, exe, "O%s " % opt, tmp)
            if opt == "3":
                test_crowd(args, exe, "O%s " % opt, tmp)
        test_errors(args, driver.fixture(args, "attachee", "0"), tmp)
    return driver.finish()


if __name__ == "__main__":
    sys.exit(main())
