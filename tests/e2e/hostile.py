#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A hostile program cannot hurt rtrace: its event area is untrusted input.

    hostile.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

tests/fixtures/adversary.rs (its modes below) attacks the memory rtrace
shares with it while three threads call its traced function (3N calls,
N = 20,000).  Each attack runs under `rtrace record` with the default engine, with
--keep=none and with --count, under a watchdog; each run must:

  * end by itself within 120 s (never killed by the watchdog), rtrace
    never killed by a signal, with the program's own exit status (0);
  * stay under 512 MiB of peak resident memory (rtrace's, or the
    program's when larger: the kernel reports the larger of the two);
  * leave a log every view reads (report; with events, also tree, replay,
    graph and both exports);
  * count work's calls exactly, or mark the row L (fewer than the
    program made, which the report must say) and never count more.

The attacks (adversary.rs says how each is made):

  calm      none, the baseline: exact counts
  shrink    truncating the area's file: refused, the area is sealed
            (root only: the program opens the file through
            /proc/self/map_files; as another user, the attack fails
            anyway and the run checks the rest)
  private   private memory mapped over the program's view: rtrace warns
            once and records its calls at a stop each; exact counts
  tails     the rings' tails (rtrace's words) set back 2,000 events:
            rtrace keeps its own, and drops what the program's recorder
            then overwrote (it reads the shared tail for room): counts
            exact, or lower and marked L ("wrote over")
  counters  the counts of events not recorded set to 2^64 - 1, then 0:
            rtrace says once that the program wrote them and counts
            nothing lost; exact counts, no L
  off       recording turned off, as the recorder does when rtrace does
            not answer: rtrace turns it back on at once, and the calls
            lost are marked L, with the program as the reason
  table     pseudo-random bytes over the whole thread table: its
            threads' ring addresses too, so the program may die of it
            (SIGSEGV, its own doing: rtrace ends with its status, 139);
            rtrace says each kind of damage once; counts exact, or lower
            and marked L

A run says no more than 8 warnings.

Exit status 0 when no check is NG.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from driver import row  # noqa: E402

N = 20000
TIME_BOUND = 120
RSS_BOUND_KIB = 512 * 1024
MODES = {"default": [], "keep-none": ["--keep=none"], "count": ["--count"]}
ATTACKS = ("calm", "shrink", "private", "tails", "counters", "off",
           "table")
# attacks whose counts stay exact
EXACT = ("calm", "shrink", "private", "counters")
# what the header says of the calls lost, when some are
WHY = {"off": "the program turned recording off",
       "tails": "the program wrote over", "table": "the program wrote over"}
# what the program says its attack did, when rtrace traces it
SAID = {"shrink": r"adversary: shrink: (refused|cannot open)",
        "private": r"adversary: private: mapped over",
        "tails": r"adversary: tails: [1-9]\d* tails set back",
        "counters": r"adversary: counters: counters set",
        "off": r"adversary: off: recording off"}
# (the table attack may kill the program before it says so)


def watched(cmd):
    """(status, stdout, stderr, seconds, peak RSS in KiB) of @cmd, killed
    after TIME_BOUND seconds (status None then)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        status = None
        while time.monotonic() - t0 < TIME_BOUND:
            pid, st, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                status = os.waitstatus_to_exitcode(st)
                break
            time.sleep(0.05)
        else:
            p.kill()
            pid, st, ru = os.wait4(p.pid, 0)
        p.returncode = status if status is not None else -9
        secs = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        return (status, driver.text(out.read()), driver.text(err.read()),
                secs, ru.ru_maxrss)


def views_read(rtrace, log, events):
    """The views that fail to read @log: [(view, stderr)]."""
    views = [["report"]]
    if events:
        views += [["tree"], ["replay"], ["report", "--graph", "adversary::*"],
                  ["export", "--format", "folded"],
                  ["export", "--format", "chrome", "-o", log + ".json"]]
    bad = []
    for v in views:
        r = driver.run([rtrace] + v + [log], timeout=TIME_BOUND)
        if r is None or r.returncode != 0:
            bad.append((" ".join(v), "timeout" if r is None else
                        r.stderr.strip()[-300:]))
    return bad


def one(rtrace, exe, tmp, attack, mode):
    what = "%s, %s" % (attack, mode)
    log = os.path.join(tmp, "%s-%s.data" % (attack, mode))
    status, out, err, secs, rss = watched(
        [rtrace, "record", "-o", log, "-f", "adversary::work"] + MODES[mode]
        + ["--", exe, attack, str(N)])
    # the program may die of garbage in its thread table (SIGSEGV)
    fine = (0, 128 + signal.SIGSEGV) if attack == "table" else (0,)
    row("%s: ends by itself, with the program's status" % what,
        status in fine,
        "status %s after %.1f s%s" % (status, secs, "" if status in fine
                                      else ": " + err.strip()[-600:]))
    row("%s: rtrace under %d MiB" % (what, RSS_BOUND_KIB // 1024),
        rss < RSS_BOUND_KIB, "%d KiB" % rss)
    if attack in SAID:
        said = re.search(SAID[attack] + ".*", err)
        row("%s: the attack was made" % what, said,
            said.group(0) if said else err.strip()[-300:])
    bad = views_read(rtrace, log, mode == "default")
    row("%s: every view reads the log" % what, not bad, repr(bad))
    warns = [ln for ln in err.splitlines() if "warning:" in ln]
    row("%s: at most 8 warnings" % what, len(warns) <= 8,
        "%d: %s" % (len(warns), " | ".join(warns[:3])))
    made = driver.counts(out).get("adversary::work")
    if status != 0:
        return status   # no count of its own to compare with
    rep = driver.report_json(rtrace, log)
    rows = [f for f in rep["functions"] if f["name"] == "adversary::work"] \
        if rep else []
    got = sum(f["calls"] for f in rows)
    # no row at all when every event was dropped: the header says so
    marked = any("lost" in f.get("marks", []) for f in rows) or (
        not rows and (rep or {}).get("lost_events", 0) > 0)
    if attack in EXACT:
        ok = made == 3 * N and got == made and not marked
        say = "calls exact, no L"
    else:
        why = (rep or {}).get("lost_why") or ""
        ok = made == 3 * N and (got == made or (
            got < made and marked and WHY[attack] in why))
        say = "calls exact, or fewer and marked L (%s)" % WHY[attack]
    row("%s: %s" % (what, say), ok, "program %s, rtrace %d%s" % (
        made, got, " (L: %s)" % rep.get("lost_why") if marked else ""))
    return status


def main():
    opts = driver.options(__doc__.split("\n")[1])
    exe = driver.fixture(opts, "adversary", "1")
    native = driver.run([exe, "calm", str(N)])
    row("native: the program counts its calls",
        native and driver.counts(native.stdout).get("adversary::work")
        == 3 * N, native and native.stdout)
    with tempfile.TemporaryDirectory(prefix="rtrace-hostile.") as tmp:
        for attack in ATTACKS:
            for mode in MODES:
                one(opts.rtrace, exe, tmp, attack, mode)
    return driver.finish()


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
