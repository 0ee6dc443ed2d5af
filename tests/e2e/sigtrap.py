#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A program that sets SIGILL or SIGTRAP itself keeps what it set under rtrace.

    sigtrap.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

rtrace's breakpoints raise SIGILL (a single step of rtrace's, SIGTRAP),
and the kernel resets an ignored or blocked signal when it forces one.
Each case runs tests/fixtures/sigtrap.rs natively, then under `rtrace
record`, for SIGILL and for SIGTRAP, with the default engine and with
--engine trap, at -O0 and -O3, as root and as user nobody (where setpriv
can make it so), and checks that the program behaves as natively (stdout,
exit status) and that the calls rtrace counted are the fixture's own.
Each SIGILL case runs with every function of the fixture traced, and with
work() alone: then a thread's first event (a breakpoint with either
engine) comes after the program set SIGILL.  SIG below is the signal.

  ignore   SIG ignored, work() called, SIG raised: no effect.
  handle   a SIG handler that calls a traced function (SIG is blocked
           while it runs): every raise reaches the handler.
  block    SIG blocked, work() called: still blocked, and a raised SIG
           stays pending.
  thread   SIG ignored; a new thread calls work(): no effect.
  inherited  SIG ignored by the shell that execs the program, which calls
           work() and raises SIG: no effect.
  sandbox  SIG ignored, then a seccomp filter that kills the program for
           rt_sigaction(SIG).  SIGILL: rtrace must not make that call; it
           says so, the program is not killed by the filter, but dies of
           the SIGILL it raised (status 132: a documented limit).
           SIGTRAP: never touched; rtrace says nothing, the program ends
           as natively.
  attach   the program ignores SIG before rtrace attaches; the calls made
           while attached are counted, and after the detach a raised SIG
           is still ignored.

Exit status 0 when no check is NG.
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import adversary  # noqa: E402  (nobody: who may run what)
import attach as attach_driver  # noqa: E402  (its Program driver)
import driver  # noqa: E402
from driver import row  # noqa: E402

ENGINES = ([], ["--engine", "trap"])
# (name, the fixture's arguments for it): SIGILL is what rtrace's
# breakpoints raise, so it gets every case and both patterns; SIGTRAP,
# which only a step of rtrace's raises, the cases with one pattern
SIGNALS = (("ILL", ["ill"]), ("TRAP", []))
CASES = (["ignore", "2000"], ["handle", "1000", "20"], ["block", "2000"],
         ["thread", "2000"], ["inherited", "2000"])


def traced(args, log, wrapper):
    rep = driver.report_json(args.rtrace, log, wrapper=wrapper)
    return None if rep is None else driver.calls_by_name(rep)


def ignoring(signame):
    """A shell that ignores SIG@signame, then execs its arguments: what it
    runs inherits SIG_IGN (rtrace, and the program rtrace starts)."""
    return ["sh", "-c", "trap '' %s; exec \"$@\"" % signame, "sh"]


def run_case(args, exe, sig, case, extra, tag, tmp, wrapper, pattern):
    name = "%sSIG%s %s %s -f %s: " % (tag, sig[0], " ".join(case), " ".join(extra) or "default engine",
                                     pattern)
    if case[0] == "inherited":
        wrapper = list(wrapper) + ignoring(sig[0])
        case = ["raise"] + case[1:]
    case = sig[1] + case
    native = subprocess.run(list(wrapper) + [exe] + case, capture_output=True, text=True)
    log = os.path.join(tmp, "%s.rtrace" % "-".join([tag.strip().replace(" ", "-")] + case + extra
                                                     + [pattern.replace(":", "").replace("*", "all")]))
    try:
        r = subprocess.run(list(wrapper) + [args.rtrace, "record", "-o", log,
                                            "-f", pattern] + extra + ["--", exe] + case,
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        row(name + "rtrace ends", False, "timed out")
        return
    row(name + "exit status and stdout as natively",
        r.returncode == native.returncode == 0 and r.stdout == native.stdout,
        "exit %d (native %d), %r; %s" % (r.returncode, native.returncode,
                                         r.stdout[-80:], r.stderr.strip()[-200:]))
    want = {k: v for k, v in driver.counts(native.stdout).items()
            if pattern.endswith("*") or k == pattern}
    got = traced(args, log, wrapper) or {}
    got = {k: got.get(k, 0) for k in want}
    row(name + "calls counted (by construction)", got == want, "%s, want %s" % (got, want))


def run_attach(args, exe, sig, extra, tag, tmp, wrapper):
    name = "%sSIG%s attach %s: " % (tag, sig[0], " ".join(extra) or "default engine")
    prog = attach_driver.Program(exe, wrapper, sig[1] + ["wait"])
    log = os.path.join(tmp, "attach-%s.rtrace" % "-".join([tag.strip().replace(" ", "-")] + sig[1]
                                                           + extra))
    rt = subprocess.Popen(list(wrapper) + [args.rtrace, "record", "-o", log, "-p", str(prog.pid),
                                           "-f", "sigtrap::*"] + extra,
                          stderr=subprocess.PIPE, text=True)
    lines = []
    for line in rt.stderr:
        lines.append(line)
        if "attached to process" in line or "cannot" in line:
            break
    done = prog.ask("run 1000")
    rt.send_signal(signal.SIGINT)
    rc = rt.wait(timeout=60)
    err = "".join(lines) + rt.stderr.read()
    row(name + "rtrace detaches and exits 0", rc == 0, "exit %d %s" % (rc, err.strip()[-200:]))
    after = prog.ask("run 10")
    st, out = prog.finish()
    row(name + "SIG%s still ignored after the detach: exits 0" % sig[0],
        done == "done 1000" and after == "done 10" and st == 0
        and "COUNT sigtrap::work 1010\n" in out, "exit %d, %r %r %r" % (st, done, after, out))
    got = (traced(args, log, wrapper) or {}).get("sigtrap::work")
    row(name + "calls while attached (by construction)", got == 1000, got)


def run_sandbox(args, exe, sig, extra, tag, tmp, wrapper):
    name = "%sSIG%s sandbox %s: " % (tag, sig[0], " ".join(extra) or "default engine")
    case = sig[1] + ["sandbox", "1000"]
    native = subprocess.run(list(wrapper) + [exe] + case, capture_output=True, text=True)
    log = os.path.join(tmp, "sandbox-%s.rtrace" % "-".join([tag.strip().replace(" ", "-")] + sig[1]
                                                            + extra))
    try:
        # --no-blocked: the probes of libc's blocking calls record std's
        # start-up poll(), which gives the thread its ring (a stop at the
        # recorder) before the filter; without them that stop comes at
        # work()'s first call, after the filter, as in a program that
        # makes no blocking call first: the case checked here
        r = subprocess.run(list(wrapper) + [args.rtrace, "record", "-o", log, "-f", "sigtrap::work",
                                            "--no-blocked"]
                           + extra + ["--", exe] + case,
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        row(name + "rtrace ends", False, "timed out")
        return
    row(name + "natively the program exits 0", native.returncode == 0, native.returncode)
    if sig[0] == "TRAP":
        # rtrace's traps raise SIGILL: the program's SIGTRAP is never
        # touched, and it ends as natively
        row(name + "SIGTRAP untouched: the program ends as natively",
            r.returncode == native.returncode, "exit %d (native %d)" % (r.returncode,
                                                                      native.returncode))
        row(name + "no word about SIGTRAP", "SIGTRAP" not in r.stderr, r.stderr.strip()[-300:])
        return
    row(name + "rtrace makes no rt_sigaction the filter kills for",
        r.returncode == 128 + signal.SIGILL, "exit %d (%d: SIGSYS)" % (r.returncode,
                                                                      128 + signal.SIGSYS))
    row(name + "rtrace says why, once",
        r.stderr.count("seccomp filter could kill it for the rt_sigaction call that puts "
                       "back its SIGILL action") == 1,
        r.stderr.strip()[-300:])


def run_all(args, exe, tag, tmp, wrapper):
    for sig in SIGNALS:
        patterns = ("sigtrap::*", "sigtrap::work") if sig[0] == "ILL" else ("sigtrap::*",)
        for extra in ENGINES:
            for case in CASES:
                for pattern in patterns:
                    run_case(args, exe, sig, case, extra, tag, tmp, wrapper, pattern)
            run_attach(args, exe, sig, extra, tag, tmp, wrapper)
            run_sandbox(args, exe, sig, extra, tag, tmp, wrapper)


def main():
    args = driver.options()
    for opt in ("0", "3"):
        exe = driver.fixture(args, "sigtrap", opt)
        tmp = tempfile.mkdtemp(prefix="rtrace-sigtrap.")
        try:
            tag = "O%s " % opt
            run_all(args, exe, tag, tmp, ())
            why = adversary.nobody_cannot(args, exe)
            if why:
                row(tag + "cases as user nobody", "SKIP", why)
                continue
            os.chmod(tmp, 0o777)
            run_all(args, exe, tag + "nobody ", tmp, adversary.NOBODY)
        finally:
            subprocess.run(["rm", "-rf", tmp])
    return driver.finish()


if __name__ == "__main__":
    sys.exit(main())
