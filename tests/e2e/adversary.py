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

Cases that need no side script (exact counts, per thread) are in
cases/t035_shared_tp.py.  Exit status 0 when no check is NG.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runtest  # noqa: E402  (its fixture builds)

FAILED = []


def row(name, ok, detail=""):
    print("%-60s %s  %s" % (name, "OK" if ok else "NG", detail))
    if not ok:
        FAILED.append(name)


def build(args, opt):
    b = runtest.Build(opt, False)
    os.makedirs(args.build, exist_ok=True)
    runtest.build_fixture(args, "adversary", b)
    if b.error:
        raise RuntimeError(b.error)
    return b.exe


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


def calls(args, log, name):
    r = subprocess.run([args.rtrace, "report", "--format", "json", log],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    rep = json.loads(r.stdout)
    return sum(f["calls"] for f in rep["functions"] if f["name"] == name)


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


def main():
    ap = argparse.ArgumentParser()
    for a in ("--rtrace", "--rustc", "--fixtures", "--build"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    for a in ("rtrace", "fixtures", "build"):
        setattr(args, a, os.path.abspath(getattr(args, a)))
    for opt in ("0", "3"):
        exe = build(args, opt)
        tmp = tempfile.mkdtemp(prefix="rtrace-adversary.")
        try:
            test_scribble(args, exe, "O%s " % opt, tmp)
        finally:
            subprocess.run(["rm", "-rf", tmp])
    print("%d NG" % len(FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
