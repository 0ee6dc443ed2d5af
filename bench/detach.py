#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What attaching to a real program and leaving it does to the program.

    bench/detach.py [--rtrace build/rtrace] [--program NAME]...
                    [--cycles 50] [--kills 30] [--seed N] [--out FILE]

The programs are test binaries of real concurrent crates, built offline
from the sources Debian packages (tools/debcrate.py; the crates and their
dev-dependencies installed with apt-get when missing, as root):

  rayon-core          its lib tests          -f 'rayon_core::*'
  parking_lot         its lib tests          -f 'parking_lot::*'
  crossbeam-channel   its `array` tests      -f 'crossbeam_channel::*'

each as a release build (with debug info) and a debug build.  For each:

  native   the tests alone: their exit status and summary line
  cycles   the tests again while rtrace attaches (`rtrace record -p PID
           --duration D`, D random in 0.2-1 s), detaches, waits a random
           0-0.5 s and attaches again, until --cycles detaches are done
           (over as many runs of the tests as it takes).  After every
           detach: the bytes of the binary's code mappings that differ
           from the file's (/proc/PID/mem); at the end of each run
           whether it ended as natively; an rtrace that has not detached
           after --hang seconds (60) is killed and counted as a hang
  kills    (release rayon-core, and any --kill-all program) --kills runs:
           rtrace attaches, and is killed with SIGKILL at a random moment
           0.2-2 s later; the tests must end as natively

and prints, as Markdown, per program: detaches, runs, runs that did not
end as natively (with how they ended), differing code bytes, and the kill
runs and their deaths.  The done-when figures of the work this was
written for: 0 deaths and 0 differing bytes in 50 cycles per program, and
0 deaths in 30 kills on rayon-core release.
"""
import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "tools"))
import codebytes  # noqa: E402
import debcrate  # noqa: E402

# name, crate, cargo's test selection, rtrace's pattern
PROGRAMS = [
    ("rayon-core", "rayon-core", ["--lib"], "rayon_core::*"),
    ("parking_lot", "parking_lot", ["--lib"], "parking_lot::*"),
    ("crossbeam-channel", "crossbeam-channel", ["--test", "array"], "crossbeam_channel::*"),
]
# the dev-dependencies Debian packages apart from the crates
DEV_DEPS = ["rand-xorshift", "scoped-tls", "bincode", "signal-hook", "rand"]
SUMMARY = re.compile(r"^test result: .*?(?=; finished)", re.M)


def install(crates):
    for c in crates:
        debcrate.sources(c, install=True)


def build(crate, sel, release):
    src = debcrate.sources(crate, install=True)
    if not src:
        sys.exit("detach: no %s sources (apt-get install %s)" % (crate, debcrate.package(crate)))
    env = dict(os.environ, CARGO_PROFILE_RELEASE_DEBUG="true")
    exe, err = debcrate.build(crate + ("-release" if release else ""), src,
                              ["test", "--no-run"] + sel + (["--release"] if release else []),
                              os.path.join(TOP, "build", "bench", "crates"), env=env)
    if not exe:
        sys.exit("detach: cargo built nothing for %s:\n%s" % (crate, err))
    return exe


def ending(st, out):
    m = SUMMARY.search(out)
    return st, m.group(0) if m else None


def how(st):
    return ("signal %d" % -st) if st < 0 else "exit %d" % st


def start(exe):
    return subprocess.Popen([exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)


def cycles(args, exe, pattern, native, want, log):
    """Attach and detach until @want detaches are done."""
    res = {"detaches": 0, "runs": 0, "bad": [], "bytes": 0, "warn": 0, "hangs": 0}
    while res["detaches"] < want and res["hangs"] < 3:
        prog = start(exe)
        res["runs"] += 1
        time.sleep(random.uniform(0.05, 0.4))
        while prog.poll() is None and res["detaches"] < want:
            try:
                r = subprocess.run([args.rtrace, "record", "-q", "-o", log, "-p",
                                    str(prog.pid), "-f", pattern, "--duration",
                                    "%.2fs" % random.uniform(0.2, 1.0)],
                                   capture_output=True, text=True, timeout=args.hang)
            except subprocess.TimeoutExpired:
                # subprocess.run killed rtrace (SIGKILL): its guardian
                # gives the program back
                res["hangs"] += 1
                if res["hangs"] >= 3:
                    break  # 3 hangs say enough: the program goes
                continue
            if prog.poll() is not None:
                break
            d = codebytes.differing(prog.pid, exe)
            res["detaches"] += 1
            res["bytes"] += d[0] if d else 0
            res["warn"] += "warning:" in r.stderr
            time.sleep(random.uniform(0, 0.5))
        try:
            out, _ = prog.communicate(timeout=600 if res["hangs"] < 3 else 10)
        except subprocess.TimeoutExpired:
            os.killpg(prog.pid, signal.SIGKILL)
            out, _ = prog.communicate()
        if ending(prog.returncode, out) != native:
            res["bad"].append(how(prog.returncode))
    return res


def kills(args, exe, pattern, native, n, log):
    bad = []
    for _ in range(n):
        prog = start(exe)
        time.sleep(random.uniform(0.05, 0.4))
        rt = subprocess.Popen([args.rtrace, "record", "-q", "-o", log, "-p", str(prog.pid),
                               "-f", pattern], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        time.sleep(random.uniform(0.2, 2.0))
        rt.send_signal(signal.SIGKILL)
        rt.wait()
        out, _ = prog.communicate(timeout=600)
        if ending(prog.returncode, out) != native:
            bad.append(how(prog.returncode))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtrace", default=os.path.join(TOP, "build", "rtrace"))
    ap.add_argument("--program", action="append", help="NAME or NAME-debug")
    ap.add_argument("--cycles", type=int, default=50)
    ap.add_argument("--kills", type=int, default=30)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--hang", type=float, default=60,
                    help="seconds after which an rtrace that has not detached is a hang")
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    random.seed(args.seed)
    install(DEV_DEPS)
    rows = ["| program | build | detaches | runs | not as natively | differing code bytes "
            "| warnings | rtrace hangs | kill -9 runs | deaths |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory(prefix="rtrace-detach-") as tmp:
        log = os.path.join(tmp, "run.rtrace")
        for name, crate, sel, pattern in PROGRAMS:
            for release in (True, False):
                tag = name + ("" if release else "-debug")
                if args.program and tag not in args.program:
                    continue
                exe = build(crate, sel, release)
                p = start(exe)
                out, _ = p.communicate(timeout=600)
                native = ending(p.returncode, out)
                res = cycles(args, exe, pattern, native, args.cycles, log)
                nk = args.kills if (name == "rayon-core" and release) else 0
                kb = kills(args, exe, pattern, native, nk, log) if nk else []
                row = "| %s | %s | %d | %d | %d%s | %d | %d | %d | %s | %s |" % (
                    name, "release" if release else "debug", res["detaches"], res["runs"],
                    len(res["bad"]), " (%s)" % ", ".join(res["bad"]) if res["bad"] else "",
                    res["bytes"], res["warn"], res["hangs"], nk or "-",
                    ("%d (%s)" % (len(kb), ", ".join(kb)) if kb else "0") if nk else "-")
                print(row, flush=True)
                rows.append(row)
    text = "\n".join(rows) + "\n"
    print(text)
    if args.out != "-":
        with open(args.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
