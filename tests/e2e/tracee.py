#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What each way rtrace can end leaves of a program it started.

    tracee.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

docs/errors.md, "When rtrace dies", promises that the program either runs
to its normal end with its normal output, or, when rtrace dies, is killed
with it: never left running with breakpoints in its code, never left
stopped.  Each case runs `rtrace -f hotloop::* -- hotloop N` in a session
of its own, so the program is found by its process group, then:

  exit          the program ends by itself: its stdout and exit status are
                the native run's
  SIGINT        Ctrl-C to the process group: exit 130, like the native run
  SIGTERM       SIGTERM to rtrace alone: passed on, exit 143
  SIGKILL       rtrace killed: the program dies with it
  fault POINT   RTRACE_FAULT=POINT makes rtrace abort (exit 134) at a point
                of its work: the program dies with it, or, for `ended`,
                had already ended with its normal output
  log after kill -9   a program makes 1,000 calls, then idles: rtrace,
                killed 2 s later (both engines), leaves a log that reads
                and holds every one of them (rtrace hands the log to the
                kernel at least once a second, however few the events)
  then, for every case: within 10 s no process of the group is left, not
  even one stopped; a program that outlived rtrace (this script is a
  child subreaper, so it inherits it) died of SIGKILL, the kernel's
  PTRACE_O_EXITKILL, and not of a breakpoint left in its code; the log that was written is readable by `rtrace
  report` (it exists once the program has started and rtrace armed it).
Exit status 0 when no check is NG.
"""
import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from driver import row  # noqa: E402

LONG = "1000000000000"  # hotloop runs for hours: only a signal ends it


def group(pgid):
    """{pid: state letter} of the processes in process group @pgid."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[2]) == pgid:
            out[int(d)] = fields[0]
    return out


def wait_started(pgid, rt, timeout=20):
    """The program's pid once it runs under rtrace (a second process in the
    group that has exec'd: its /proc/PID/exe is no longer rtrace)."""
    end = time.time() + timeout
    while time.time() < end and rt.poll() is None:
        for pid in group(pgid):
            if pid == rt.pid:
                continue
            try:
                if "hotloop" in os.readlink("/proc/%d/exe" % pid):
                    return pid
            except OSError:
                pass
        time.sleep(0.05)
    return None


def left_behind(pgid, timeout=10):
    """Processes of the group still there (zombies aside) after @timeout."""
    end = time.time() + timeout
    while True:
        alive = {p: s for p, s in group(pgid).items() if s not in "ZX"}
        if not alive or time.time() > end:
            return alive
        time.sleep(0.1)


def reap_orphans(timeout=10):
    """Wait statuses of the processes left to us as the subreaper."""
    got, end = {}, time.time() + timeout
    while True:
        try:
            pid, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return got
        if pid:
            got[pid] = st
        elif time.time() > end:
            return got
        else:
            time.sleep(0.05)


def describe(st):
    if os.WIFSIGNALED(st):
        return signal.Signals(os.WTERMSIG(st)).name
    return "exit %d" % os.WEXITSTATUS(st)


class Case:
    def __init__(self, name, n=LONG, signal_=None, to="rtrace", fault=None,
                 want_exit=None, want_output=False, want_log=True):
        self.name, self.n, self.sig, self.to = name, n, signal_, to
        self.fault, self.want_exit = fault, want_exit
        self.want_output, self.want_log = want_output, want_log


CASES = [
    Case("exit", n="20000", want_exit=0, want_output=True),
    Case("SIGINT to the group", signal_=signal.SIGINT, to="group", want_exit=130),
    Case("SIGTERM to rtrace", signal_=signal.SIGTERM, want_exit=143),
    Case("SIGKILL to rtrace", signal_=signal.SIGKILL, want_exit=-9),
    Case("fault: launched", fault="launched", want_exit=-6, want_log=False),
    Case("fault: armed", fault="armed", want_exit=-6),
    Case("fault: hit", fault="hit:5000", want_exit=-6),
    Case("fault: flush", fault="flush:2", want_exit=-6),
    Case("fault: ended", n="20000", fault="ended", want_exit=-6, want_output=True),
]


def run_case(args, exe, native, c, tmp):
    log = os.path.join(tmp, "log.rtrace")
    env = dict(os.environ)
    if c.fault:
        env["RTRACE_FAULT"] = c.fault
    rt = subprocess.Popen([args.rtrace, "record", "-q", "-o", log, "-f", "hotloop::*",
                           "--", exe, c.n], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=env, start_new_session=True)
    pgid = rt.pid
    prog = wait_started(pgid, rt) if c.sig else None
    if c.sig:
        time.sleep(0.5)
        if c.to == "group":
            os.killpg(pgid, c.sig)
        else:
            rt.send_signal(c.sig)
    try:
        out, err = rt.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(pgid, signal.SIGKILL)
        out, err = rt.communicate()
        row(c.name + ": rtrace ends", False, "timed out")
        return
    row(c.name + ": rtrace's exit status", rt.returncode == c.want_exit,
        "%d (want %d)%s" % (rt.returncode, c.want_exit,
                            "" if rt.returncode == c.want_exit else ": " + err.decode()[-300:]))
    if c.sig and prog is None:
        row(c.name + ": the program started", False, "not seen in the process group")
    orphans = reap_orphans(1 if c.want_output or c.sig in (signal.SIGINT, signal.SIGTERM)
                           else 10)
    if rt.returncode < 0 and not c.want_output:
        ok = orphans and all(os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGKILL
                             for st in orphans.values())
        row(c.name + ": the program was killed with rtrace", ok,
            ", ".join("%d: %s" % (p, describe(st)) for p, st in orphans.items())
            or "no program outlived rtrace")
    elif orphans:
        row(c.name + ": no program outlived rtrace", False,
            ", ".join("%d: %s" % (p, describe(st)) for p, st in orphans.items()))
    rest = left_behind(pgid)
    row(c.name + ": nothing left running or stopped", not rest,
        ", ".join("%d (%s)" % kv for kv in rest.items()) or "none")
    for pid in rest:  # never leave one behind us either
        os.kill(pid, signal.SIGKILL)
    if c.want_output:
        row(c.name + ": the program's output, complete", out == native,
            "%d bytes, native %d" % (len(out), len(native)))
    if c.want_log:
        rep = subprocess.run([args.rtrace, "report", log], capture_output=True, text=True)
        row(c.name + ": the log is readable", rep.returncode == 0,
            rep.stderr.strip()[:120])


def test_log_after_kill(args, exe, engine, tmp):
    """kill -9 of rtrace 2 s after the program's last call: the log holds
    every call (far fewer events than fill a write buffer)."""
    log = os.path.join(tmp, "killed.rtrace")
    name = "log after kill -9 (%s)" % (engine or "default engine")
    rt = subprocess.Popen([args.rtrace, "record", "-q", "-o", log, "-f", "adversary::*"]
                          + ([engine] if engine else []) + ["--", exe, "idle", "1000"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          start_new_session=True)
    done = rt.stdout.readline().strip()
    time.sleep(2)
    rt.kill()
    rt.wait()
    for pid in left_behind(rt.pid):
        os.kill(pid, signal.SIGKILL)
    reap_orphans(10)
    rep = subprocess.run([args.rtrace, "report", "--format", "json", log],
                         capture_output=True, text=True)
    try:
        d = json.loads(rep.stdout)
    except ValueError:
        row(name + ": the log reads", False, "%r %s" % (done, rep.stderr.strip()[:200]))
        return
    row(name + ": the log reads, cut short", d.get("end") == "cut", d.get("end"))
    got = sum(f["calls"] for f in d["functions"] if f["name"] == "adversary::work")
    row(name + ": every call made before the kill (by construction)", got == 1000,
        "%d of 1000" % got)


def main():
    args = driver.options()
    # PR_SET_CHILD_SUBREAPER: what rtrace leaves behind becomes ours
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    exe = driver.fixture(args, "hotloop", "3")
    native = subprocess.run([exe, "20000"], capture_output=True, check=True).stdout
    for c in CASES:
        tmp = tempfile.mkdtemp(prefix="rtrace-tracee.")
        try:
            run_case(args, exe, native, c, tmp)
        finally:
            subprocess.run(["rm", "-rf", tmp])
    idler = driver.fixture(args, "adversary", "0")
    for engine in (None, "--engine=trap"):
        tmp = tempfile.mkdtemp(prefix="rtrace-tracee.")
        try:
            test_log_after_kill(args, idler, engine, tmp)
        finally:
            subprocess.run(["rm", "-rf", tmp])
    return driver.finish()


if __name__ == "__main__":
    sys.exit(main())
