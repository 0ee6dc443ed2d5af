#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Programs that do to rtrace what a tracer must survive.

    adversary.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

Each case runs the fixture tests/fixtures/adversary.rs natively, then under
`rtrace record`, at -O0 and -O3, and checks that the program behaves as
natively (stdout, exit status) and that rtrace ends in bounded time with a
readable log whose counts are possible:

  scribble   the program writes over rtrace's event area (every ring's
             counter set to 0xdeadbeef00000000, the rings filled with
             0xA5): rtrace warns, drops what it cannot trust, and goes on;
             work's count lies between the calls made after the damage
             (N) and all of them (2N); the log stays small.

  sandbox    (unprivileged: rtrace and the program as user nobody) the
             program installs a seccomp filter that kills it for
             memfd_create and execs itself: rtrace cannot read the filter
             without CAP_SYS_ADMIN, so it makes no system call in the new
             image and says that image is not traced; the program's
             output and exit status are the native ones.
  attach     the program installs the same filter, then rtrace attaches to
             it (as root: it reads the filter, makes no memfd_create, and
             keeps breakpoints): the calls made while attached are
             counted exactly, and after the detach the program runs on
             and exits 0.  As nobody, rtrace cannot read the filter and
             cannot probe the program: it says so, and the program runs on.

  nodump     (as nobody) the program makes itself non-dumpable, then forks
             4 children that call work() N times each: rtrace may not open
             their memory, yet each child gets its breakpoints back (or,
             with --no-follow, its code back) and none dies; the calls
             per process are N each (the parent's only, with
             --no-follow).  Default engine and --engine trap.

Cases that need no side script (exact counts, per thread) are in
cases/t035_shared_tp.py and cases/t036_sandbox.py.  Exit status 0 when no
check is NG.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attach as attach_driver  # noqa: E402  (its Program driver)
import driver  # noqa: E402
from driver import row  # noqa: E402


def record(args, exe, argv, tmp, extra=()):
    """(exit status, stdout, stderr, log path) of one traced run, or
    None when rtrace did not end in time."""
    log = os.path.join(tmp, "adv.rtrace")
    try:
        r = subprocess.run([args.rtrace, "record", "-o", log, "-f", "adversary::*"]
                           + list(extra) + ["--", exe] + argv,
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None
    return r.returncode, r.stdout, r.stderr, log


NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def nobody_cannot(args, exe):
    """Why the unprivileged cases cannot run here, or None: they need root
    to become nobody, and nobody must reach rtrace and the fixture (a
    checkout under /root is out of its reach)."""
    if os.getuid() != 0 or not shutil.which("setpriv"):
        return "not root, or no setpriv: cannot become user nobody"
    for path in (args.rtrace, exe):
        if subprocess.run(NOBODY + ["test", "-x", path]).returncode != 0:
            return "user nobody cannot run %s" % path
    return None


def calls(args, log, name):
    rep = driver.report_json(args.rtrace, log)
    return None if rep is None else driver.calls(rep, name)


def test_scribble(args, exe, tag, tmp):
    n = 100000
    native = subprocess.run([exe, "scribble", str(n)], capture_output=True, text=True)
    got = record(args, exe, ["scribble", str(n)], tmp)
    row(tag + "scribble: rtrace ends (60 s allowed)", got is not None)
    if got is None:
        return
    rc, out, err, log = got
    row(tag + "scribble: the program found the event area",
        "wrote over the event area" in err, err.strip()[-200:])
    row(tag + "scribble: exit status and stdout as natively",
        rc == native.returncode == 0 and out == native.stdout,
        "exit %d, %r" % (rc, out[-80:]))
    row(tag + "scribble: rtrace says the ring was written over",
        "wrote over" in err and "event ring" in err, err.strip()[-300:])
    size = os.path.getsize(log)
    row(tag + "scribble: the log stays small", size < 64 << 20, "%d bytes" % size)
    c = calls(args, log, "adversary::work")
    row(tag + "scribble: work's calls between N and 2N",
        c is not None and n <= c <= 2 * n, "%s (N = %d)" % (c, n))


def test_sandbox_unprivileged(args, exe, tag, tmp):
    os.chmod(tmp, 0o777)
    native = subprocess.run(NOBODY + [exe, "sandbox", "1000"], capture_output=True, text=True)
    log = os.path.join(tmp, "sandbox.rtrace")
    try:
        r = subprocess.run(NOBODY + [args.rtrace, "record", "-o", log, "-f", "adversary::*",
                                     "--", exe, "sandbox", "1000"],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        row(tag + "sandbox as nobody: rtrace ends", False, "timed out")
        return
    row(tag + "sandbox as nobody: exit status and stdout as natively",
        r.returncode == native.returncode == 0 and r.stdout == native.stdout,
        "exit %d (native %d), %r" % (r.returncode, native.returncode, r.stdout[-60:]))
    row(tag + "sandbox as nobody: rtrace says the new image is not traced",
        "seccomp filter" in r.stderr and "not traced" in r.stderr, r.stderr.strip()[-200:])


def sandboxed(exe, wrapper=()):
    """adversary sandbox-wait, driven through its stdin and stdout as
    attach.py drives its own program."""
    return attach_driver.Program(exe, wrapper, ["sandbox-wait"])


def attach(args, prog, log, wrapper=()):
    rt = subprocess.Popen(list(wrapper) + [args.rtrace, "record", "-o", log, "-p", str(prog.pid),
                                           "-f", "adversary::*"],
                          stderr=subprocess.PIPE, text=True)
    lines = []
    for line in rt.stderr:
        lines.append(line)
        if "attached to process" in line or "cannot" in line or "not traced" in line:
            break
    return rt, lines


def test_sandbox_attach(args, exe, tag, tmp):
    prog = sandboxed(exe)
    log = os.path.join(tmp, "attach.rtrace")
    rt, lines = attach(args, prog, log)
    done = prog.ask("run 1000")
    rt.send_signal(signal.SIGINT)
    rc = rt.wait(timeout=60)
    err = "".join(lines) + rt.stderr.read()
    row(tag + "attach to a sandbox: rtrace detaches and exits 0", rc == 0,
        "exit %d %s" % (rc, err.strip()[-200:]))
    row(tag + "attach to a sandbox: no event area, breakpoints", "seccomp filter" in err,
        err.strip()[-200:])
    after = prog.ask("run 10")
    st, out = prog.finish()
    row(tag + "attach to a sandbox: the program runs on and exits 0",
        done == "done 1000" and after == "done 10" and st == 0
        and out == "COUNT adversary::work 1010\n", "exit %d, %r %r %r" % (st, done, after, out))
    c = calls(args, log, "adversary::work")
    row(tag + "attach to a sandbox: calls while attached (by construction)", c == 1000, c)


def test_sandbox_attach_unprivileged(args, exe, tag, tmp):
    os.chmod(tmp, 0o777)
    prog = sandboxed(exe, NOBODY)
    log = os.path.join(tmp, "attach-nobody.rtrace")
    rt, lines = attach(args, prog, log, NOBODY)
    try:
        rc = rt.wait(timeout=10)
    except subprocess.TimeoutExpired:  # attached after all: leave
        rt.send_signal(signal.SIGINT)
        rc = rt.wait(timeout=60)
    err = "".join(lines) + rt.stderr.read()
    row(tag + "attach to a sandbox as nobody: rtrace says why it cannot probe",
        "seccomp filter" in err, err.strip()[-200:])
    done = prog.ask("run 10")
    st, out = prog.finish()
    row(tag + "attach to a sandbox as nobody: the program runs on and exits 0",
        done == "done 10" and st == 0 and out == "COUNT adversary::work 10\n",
        "rtrace exit %d; program exit %d, %r %r" % (rc, st, done, out))


def per_process(args, log, name):
    rep = driver.report_json(args.rtrace, log, "--by", "process")
    if rep is None:
        return None
    return sorted(f["calls"] for f in rep["functions"] if f["name"] == name)


def test_nodump(args, exe, tag, tmp, extra):
    n = 10000
    os.chmod(tmp, 0o777)
    native = subprocess.run(NOBODY + [exe, "nodump", str(n)], capture_output=True, text=True)
    log = os.path.join(tmp, "nodump.rtrace")
    name = tag + "nodump %s: " % " ".join(extra)
    try:
        r = subprocess.run(NOBODY + [args.rtrace, "record", "-o", log, "-f", "adversary::*"]
                           + extra + ["--", exe, "nodump", str(n)],
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        row(name + "rtrace ends", False, "timed out")
        return
    row(name + "every child lives: exit status and stdout as natively",
        r.returncode == native.returncode == 0 and r.stdout == native.stdout,
        "exit %d, %s" % (r.returncode, r.stderr.strip()[-200:]))
    want = [n] if "--no-follow" in extra else [n] * 5
    got = per_process(args, log, "adversary::work")
    row(name + "calls per process (by construction)", got == want, "%s, want %s" % (got, want))


def main():
    args = driver.options()
    for opt in ("0", "3"):
        exe = driver.fixture(args, "adversary", opt)
        tmp = tempfile.mkdtemp(prefix="rtrace-adversary.")
        try:
            tag = "O%s " % opt
            test_scribble(args, exe, tag, tmp)
            test_sandbox_attach(args, exe, tag, tmp)
            why = nobody_cannot(args, exe)
            if why:
                row(tag + "cases as user nobody", "SKIP", why)
                continue
            test_sandbox_unprivileged(args, exe, tag, tmp)
            test_sandbox_attach_unprivileged(args, exe, tag, tmp)
            for extra in ([], ["--engine", "trap"], ["--no-follow"],
                          ["--engine", "trap", "--no-follow"]):
                test_nodump(args, exe, tag, tmp, extra)
        finally:
            subprocess.run(["rm", "-rf", tmp])
    return driver.finish()


if __name__ == "__main__":
    sys.exit(main())
