#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A signal sent to the program and to rtrace reaches the program once.

    signals_group.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR
                     [--timeout-runs N]

`kill -INT -PGID`, timeout(1) and supervisors signal the whole process
group: the program gets its copy from the kernel, and rtrace must not pass
its own copy on as well.  The fixture graceful (tests/fixtures/graceful.rs)
counts its handler's runs and stops cleanly after the first, printing
"handled N" and its own COUNT of step.  Each case runs
`rtrace record -f graceful::* -- graceful` in a session of its own (the
way a terminal or a supervisor starts it), under each engine, and then:

  native            graceful alone, SIGINT to its group: handled 1, exit 0
                    (what the cases below compare with)
  SIGINT to the group
                    once the program's SIGINT handler is installed:
                    handled 1, rtrace exits 0, and the report's calls of
                    graceful::step are the program's own count
  SIGTERM to rtrace alone
                    rtrace passes it on once: handled 1, exit 0, counts
  SIGINT to the program, then to rtrace (and the other way round)
                    20 ms apart, as a supervisor signalling the group's
                    processes one by one does: handled 1, exit 0, counts
  timeout           `timeout --preserve-status -s INT 1 rtrace ...`, N
                    times: timeout signals rtrace, then the whole group;
                    every run says handled 1 and exits 0 (the program was
                    neither signalled twice nor killed)
Exit status 0 when no check is NG.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from driver import row  # noqa: E402

ENGINES = (("default", []), ("trap", ["--engine", "trap"]))


def catches_sigint(pid):
    """Whether process @pid has a handler for SIGINT (its SigCgt)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return (int(line.split()[1], 16) >> (signal.SIGINT - 1)) & 1
    except OSError:
        pass
    return False


def wait_handler(pgid, leader, timeout=20):
    """The pid of graceful in group @pgid once its handler is installed."""
    end = time.time() + timeout
    while time.time() < end and leader.poll() is None:
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) == leader.pid:
                continue
            try:
                if os.getpgid(int(d)) != pgid:
                    continue
                exe = os.readlink("/proc/%s/exe" % d)
            except OSError:
                continue
            if "graceful" in exe and catches_sigint(int(d)):
                return int(d)
        time.sleep(0.02)
    return None


def said(out, word):
    """The number after @word on a line of the program's output, or None."""
    for line in out.decode(errors="replace").splitlines():
        f = line.split()
        if f[:-1] == word.split() and f[-1].isdigit():
            return int(f[-1])
    return None


def reported_calls(args, log):
    rep = driver.report_json(args.rtrace, log)
    return None if rep is None else driver.calls(rep, "graceful::step")


def communicate(p, pgid):
    try:
        return p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(pgid, signal.SIGKILL)
        out, err = p.communicate()
        return out, err + b"\n(timed out)"


def check_run(args, name, p, out, err, log, want_exit=0):
    handled = said(out, "handled")
    row(name + ": handled once, exit %d" % want_exit,
        handled == 1 and p.returncode == want_exit,
        "handled %s, exit %d%s" % (handled, p.returncode,
                                   "" if p.returncode == want_exit
                                   else ": " + err.decode(errors="replace")[-300:]))
    if log is None:
        return
    own, got = said(out, "COUNT graceful::step"), reported_calls(args, log)
    row(name + ": calls of step", own is not None and own == got,
        "report %s, program %s" % (got, own))


def native(args, exe):
    p = subprocess.Popen([exe], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    deadline = time.time() + 20
    while not catches_sigint(p.pid) and time.time() < deadline:
        time.sleep(0.02)
    os.killpg(p.pid, signal.SIGINT)
    out, err = communicate(p, p.pid)
    check_run(args, "native: SIGINT to the group", p, out, err, None)


def signalled(args, exe, engine, opts, how, tmp):
    log = os.path.join(tmp, "log.rtrace")
    name = "%s: %s" % (engine, how)
    p = subprocess.Popen([args.rtrace, "record", "-q", "-o", log] + opts +
                         ["-f", "graceful::*", "--", exe], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    prog = wait_handler(p.pid, p)
    if prog is None:
        row(name + ": the program started", False, "no handler seen")
    time.sleep(0.2)
    if how == "SIGINT to the group":
        os.killpg(p.pid, signal.SIGINT)
    elif how == "SIGTERM to rtrace alone":
        p.send_signal(signal.SIGTERM)
    elif prog is not None:
        # a supervisor signalling the group's processes one by one
        first, then = (prog, p.pid) if how.startswith("SIGINT to the program") \
            else (p.pid, prog)
        os.kill(first, signal.SIGINT)
        time.sleep(0.02)
        os.kill(then, signal.SIGINT)
    out, err = communicate(p, p.pid)
    check_run(args, name, p, out, err, log)


def timeout_runs(args, exe, engine, opts, n, tmp):
    log = os.path.join(tmp, "log.rtrace")
    bad = []
    for i in range(n):
        p = subprocess.Popen(["timeout", "--preserve-status", "-s", "INT", "1",
                              args.rtrace, "record", "-q", "-o", log] + opts +
                             ["-f", "graceful::*", "--", exe], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
        out, err = communicate(p, p.pid)
        handled = said(out, "handled")
        if handled != 1 or p.returncode != 0:
            bad.append("run %d: handled %s, exit %d" % (i + 1, handled, p.returncode))
    row("%s: timeout -s INT, %d runs: handled once, exit 0" % (engine, n), not bad,
        "; ".join(bad)[:300] or "all")


def main():
    args = driver.options(extra=lambda ap: ap.add_argument(
        "--timeout-runs", type=int, default=8))
    exe = driver.fixture(args, "graceful", "1")
    native(args, exe)
    for engine, opts in ENGINES:
        tmp = tempfile.mkdtemp(prefix="rtrace-signals.")
        try:
            signalled(args, exe, engine, opts, "SIGINT to the group", tmp)
            signalled(args, exe, engine, opts, "SIGTERM to rtrace alone", tmp)
            signalled(args, exe, engine, opts,
                      "SIGINT to the program, then to rtrace", tmp)
            signalled(args, exe, engine, opts,
                      "SIGINT to rtrace, then to the program", tmp)
            if shutil.which("timeout"):
                timeout_runs(args, exe, engine, opts, args.timeout_runs, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return driver.finish()


if __name__ == "__main__":
    sys.exit(main())
