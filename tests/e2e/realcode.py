#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rtrace attached to a real crate's release build, and detached from it.

    realcode.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

The program is the lib tests of spin, as Debian packages its sources
(librust-spin-dev, in /usr/share/cargo/registry), built offline with cargo
--release and debug info: optimised code written by others, whose sites
make the planner put relays inside the instructions of other sites'
regions, which no fixture of ours does as often.

  premise   `rtrace -l -v` lists relays, and at least one starts inside
            an instruction (objdump's disassembly of the same binary has
            no instruction there): the case a detach must get right
  native    the tests run alone, one at a time: their status and summary
  cycles    the tests again, one at a time; while they run, rtrace
            attaches, records for a moment and detaches, over and over
            until they end (at least 3 times, over up to 4 runs).  Before the first attach
            and after each detach, every byte of the binary's code
            mappings equals the file's (read through /proc/PID/mem);
            rtrace exits 0 and warns of no byte it had to put right; the
            program ends with the native run's status and summary
  arming    with RTRACE_CHECK_CODE=1 rtrace checks its bytes right after
            arming too: every byte its sites may write but hold no longer
            is the file's; an attach with it finds nothing to put right

Exits 77 (skipped) when cargo or the crate's sources are missing; the test
packages (.ci/install-deps test) install them.
"""
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import codebytes  # noqa: E402
import debcrate  # noqa: E402
import driver  # noqa: E402
from driver import row  # noqa: E402

CRATE = "spin"
SUMMARY = re.compile(r"^test result: .*?(?=; finished)", re.M)


def build_crate(args):
    """The crate's lib test executable, built offline into the build
    directory (cargo keeps it up to date); None when it does not build."""
    src = debcrate.sources(CRATE)
    if not src:
        return None
    exe, err = debcrate.build(CRATE, src, ["test", "--no-run", "--lib", "--release"],
                              os.path.join(args.build, "realcode"),
                              env=dict(os.environ, CARGO_PROFILE_RELEASE_DEBUG="true"))
    if not exe:
        print(err)
    return exe


def relays_inside(rtrace, exe):
    """The relays `rtrace -l -v` lists, and those of them that start
    where objdump sees no instruction begin."""
    out = subprocess.run([rtrace, "-l", "-v", "-f", CRATE + "::*", exe],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, timeout=300).stdout
    relays = {int(a, 16) for a in re.findall(r"relay at (0x[0-9a-f]+)", out)}
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, timeout=300).stdout
    starts = {int(a, 16) for a in re.findall(r"^\s*([0-9a-f]+):", dis, re.M)}
    return relays, sorted(a for a in relays if a not in starts)


def summary(out):
    m = SUMMARY.search(out)
    return m.group(0) if m else None


def attach_once(args, pid, log, env=None):
    """rtrace attached to @pid for a moment: its status and stderr."""
    r = driver.run([args.rtrace, "record", "-q", "-o", log, "-p", str(pid),
                    "-f", CRATE + "::*", "--duration", "0.3s"], timeout=120, env=env)
    return (None, "timed out") if r is None else (r.returncode, r.stderr)


def cycle_run(args, exe, native, state):
    """One run of the tests with attach and detach cycles while it lasts;
    whether it ended as natively."""
    prog = subprocess.Popen([exe, "--test-threads=1"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    time.sleep(0.2)
    before = codebytes.differing(prog.pid, exe)
    if state["runs"] == 0:
        row("cycles: the code equals the file before the attach",
            before is not None and before[0] == 0 and before[1] > 0, "%r" % (before,))
    state["runs"] += 1
    while prog.poll() is None:
        log = os.path.join(args.build, "realcode", "cycle%d.rtrace" % state["cycles"])
        rc, err = attach_once(args, prog.pid, log)
        after = codebytes.differing(prog.pid, exe)
        if prog.poll() is not None or after is None:
            break  # it ended while rtrace was there: no detach to check
        state["cycles"] += 1
        if rc != 0 or after[0] or "warning:" in err:
            state["bad"].append("cycle %d: rtrace %s, %d bytes differ: %s"
                                % (state["cycles"], rc, after[0], err.strip()[-300:]))
        time.sleep(0.1)
    out = prog.stdout.read()
    st = prog.wait()
    if (st, summary(out)) != native:
        state["ends"].append("exit %d, %r" % (st, summary(out) or out[-300:]))


def test_cycles(args, exe, native):
    """Runs of the tests, each attached to and left over and over, until
    3 detaches at least (4 runs at most: a slow machine attaches fewer
    times in one)."""
    state = {"runs": 0, "cycles": 0, "bad": [], "ends": []}
    while state["cycles"] < 3 and state["runs"] < 4:
        cycle_run(args, exe, native, state)
    row("cycles: at least 3 attach and detach cycles", state["cycles"] >= 3,
        "%d in %d runs" % (state["cycles"], state["runs"]))
    row("cycles: after each detach the code equals the file", not state["bad"],
        state["bad"][0] if state["bad"] else "%d cycles" % state["cycles"])
    row("cycles: the tests end as natively, each run", not state["ends"],
        state["ends"][0] if state["ends"] else "%d runs" % state["runs"])


def test_arming_check(args, exe):
    prog = subprocess.Popen([exe, "--test-threads=1"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    time.sleep(0.2)
    rc, err = attach_once(args, prog.pid, os.path.join(args.build, "realcode", "check.rtrace"),
                          env=dict(os.environ, RTRACE_CHECK_CODE="1"))
    out, _ = prog.communicate(timeout=300)
    row("arming: rtrace finds every byte it wrote as planned",
        rc == 0 and "put them back" not in err, "exit %s %s" % (rc, err.strip()[-300:]))
    row("arming: the tests pass", prog.returncode == 0 and summary(out) is not None,
        "exit %d" % prog.returncode)


def main():
    args = driver.options()
    if not debcrate.cargo() or not shutil.which("objdump"):
        print("SKIP: cargo or objdump is not installed")
        return 77
    if not debcrate.sources(CRATE):
        print("SKIP: the %s crate's sources are not in %s (%s)"
              % (CRATE, debcrate.REGISTRY, debcrate.package(CRATE)))
        return 77
    exe = build_crate(args)
    row("build: cargo builds the crate's tests offline", exe is not None)
    if not exe:
        return driver.finish()
    relays, inside = relays_inside(args.rtrace, exe)
    row("premise: relays start inside instructions", len(inside) > 0,
        "%d of %d relays" % (len(inside), len(relays)))
    r = subprocess.run([exe, "--test-threads=1"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=300)
    native = (r.returncode, summary(r.stdout))
    row("native: the tests pass alone", native[0] == 0 and native[1] is not None,
        "%r" % (native,))
    test_cycles(args, exe, native)
    test_arming_check(args, exe)
    return driver.finish()


if __name__ == "__main__":
    sys.exit(main())
