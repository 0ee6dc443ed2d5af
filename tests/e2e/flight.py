#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The flight recorder: --keep=SIZE and --keep=TIME keep the run's last events.

    flight.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

Records the phases fixture (six phases, one function each, GAP ms of
sleep after each, a time mark printed at the start of each) three times:
whole, with --keep=1M and with --keep=1s.  What is checked comes from
the fixture's own output and from the sizes of the logs, not from what
rtrace says of itself:

* the program's output (its counts, the order of its phases) and exit
  status are those of the program run alone;
* the windows' logs are much smaller than the whole log, and the size
  window's events fit in the size;
* the events kept are the run's last ones: the first phases, which ended
  long before the end, have no call in a window; the last event kept is
  near the end of the run, the first after the start of the phase that
  precedes the window (the fixture's time marks); every call makes two
  events, so the events kept and dropped add up to at least twice the
  calls the fixture counts;
* the time window holds the last phase whole (it ends GAP ms before the
  program does, and takes well under 1 s - GAP), and nothing of the
  phases that ended more than 1 s before the end (the window's first
  event is in the phase before the last, or after it);
* the report's table is the whole run's (the profile): every function's
  calls are the fixture's, the dropped phases included; `report --window`
  gives the table of the events kept instead;
* the calls running where a window starts (main, and in the size window
  the last phase and its loop) are counted as already running, not as
  calls;
* the progress line, the summary line, the text report, the JSON report,
  replay and tree say which window their events cover, and work on the
  window's log.
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402

N = 150000      # leaf calls per phase: about 6 MB of log in all
GAP = 600       # ms of sleep after each phase
KEEP_NS = 1000 * 1000000

check = driver.row


def phase_marks(out):
    """{phase: ms since the program's start} from the fixture's marks."""
    marks = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[0] == "PHASE" and f[2] == "AT":
            marks[f[1]] = int(f[3])
    return marks


def same_program_output(what, r, native):
    """The run under rtrace printed what the program alone did (the
    marks' times aside) and exited the same."""
    check(what + ": exit status unchanged", r.returncode == native.returncode,
          str(r.returncode))
    check(what + ": counts unchanged",
          driver.counts(r.stdout) == driver.counts(native.stdout))
    check(what + ": phases unchanged",
          sorted(phase_marks(r.stdout)) == sorted(phase_marks(native.stdout)))


def partial_calls(rtrace, log):
    """{name: (calls, calls already running)} of the functions of @log's
    report that had a call running when its events start."""
    rep = driver.report_json(rtrace, log, "--window") or {"functions": []}
    return {f["name"]: (f["calls"], f["partial"])
            for f in rep["functions"] if f["partial"]}


def record(rtrace, exe, log, *keep):
    return driver.run([rtrace, "record", "-o", log] + list(keep) +
                      [exe, str(N), str(GAP)])


def window_checks(what, rtrace, r, log, full_size, counts):
    """What every window says of itself, checked against the fixture."""
    whole = driver.report_json(rtrace, log)
    table = driver.calls_by_name(whole) if whole else {}
    table = {name: table.get(name, 0) for name in counts}
    check(what + ": the table is the whole run's", table == counts,
          str(table))
    rep = driver.report_json(rtrace, log, "--window")
    win = rep and rep.get("window")
    check(what + ": JSON window", bool(win), str(win))
    if not win:
        return None, {}
    check(what + ": the window's table reads every event kept",
          rep["events"] == win["events"], "%d of %d" % (rep["events"],
                                                      win["events"]))
    calls = sum(counts.values())
    check(what + ": kept and dropped add up to the calls",
          win["events"] + win["dropped_events"] >= 2 * calls,
          "%d + %d events, %d calls" % (win["events"], win["dropped_events"],
                                        calls))
    check(what + ": the log is much smaller",
          os.path.getsize(log) * 3 < full_size,
          "%d of %d bytes" % (os.path.getsize(log), full_size))
    got = driver.calls_by_name(rep)
    for p in ("phase_a", "phase_b", "phase_c"):
        check("%s: phases::%s dropped" % (what, p),
              got.get("phases::" + p, 0) == 0, str(got.get("phases::" + p)))
    leaf = got.get("phases::leaf", 0)
    check(what + ": some leaf calls, not all",
          0 < leaf < counts["phases::leaf"], str(leaf))
    check(what + ": last event near the end",
          win["last_ns"] <= win["end_ns"] <= win["last_ns"] + 100000000,
          "%d .. %d ns" % (win["last_ns"], win["end_ns"]))
    summary = "rtrace: flight recorder: the log keeps the last "
    check(what + ": summary line", summary in r.stderr,
          r.stderr.strip()[-200:])
    text = driver.run([rtrace, "report", log])
    dropped = "{:,}".format(win["dropped_events"])
    check(what + ": text report's window line",
          text and "\n# events:   the last " in text.stdout and
          ", %s events before them dropped (--keep=" % dropped in text.stdout,
          text and text.stdout[:400])
    for view in ("replay", "tree"):
        v = driver.run([rtrace, view, log])
        check("%s: %s works" % (what, view),
              v and v.returncode == 0 and "\n# events:   the last " in v.stdout
              and "phases::leaf" in v.stdout and "phase_a" not in v.stdout,
              v and (v.stderr or v.stdout[:300]))
    return win, got


def body(rtrace, exe, tmp):
    native = driver.run([exe, str(N), str(GAP)])
    counts = driver.counts(native.stdout)
    check("native run", native.returncode == 0 and len(counts) == 7,
          str(counts))
    full = os.path.join(tmp, "full.rtrace")
    r = record(rtrace, exe, full)
    same_program_output("whole log", r, native)
    full_size = os.path.getsize(full)
    rep = driver.report_json(rtrace, full)
    check("whole log: no window", rep is not None and "window" not in rep)
    check("whole log: every leaf call",
          rep and driver.calls(rep, "phases::leaf") == counts["phases::leaf"])

    size = os.path.join(tmp, "size.rtrace")
    r = record(rtrace, exe, size, "--keep=1M", "--progress")
    same_program_output("--keep=1M", r, native)
    check("--keep=1M: progress line", "of events kept" in r.stderr,
          r.stderr[:300])
    win, _ = window_checks("--keep=1M", rtrace, r, size, full_size, counts)
    marks = phase_marks(r.stdout)
    if win:
        check("--keep=1M: events fit in the size",
              win["keep_bytes"] == 1 << 20 and win["bytes"] <= 1 << 20 and
              os.path.getsize(size) < (1 << 20) + (256 << 10),
              "%d bytes of events, log %d" % (win["bytes"],
                                              os.path.getsize(size)))
        check("--keep=1M: first event after the first phases",
              win["first_ns"] >= marks["phase_d"] * 1000000,
              "%d ns, phase_d at %d ms" % (win["first_ns"], marks["phase_d"]))
    # 1 MiB holds a fraction of the last phase's leaf calls: the window
    # starts inside it, in main -> phase_f -> run (-> leaf, when a block
    # starts between its entry and its exit), entered before it
    running = partial_calls(rtrace, size)
    running.pop("phases::leaf", None)
    check("--keep=1M: calls running at its start",
          running == {"phases::main": (0, 1), "phases::phase_f": (0, 1),
                      "phases::run": (0, 1)}, str(running))

    timed = os.path.join(tmp, "time.rtrace")
    r = record(rtrace, exe, timed, "--keep=1s")
    same_program_output("--keep=1s", r, native)
    win, got = window_checks("--keep=1s", rtrace, r, timed, full_size,
                             counts)
    marks = phase_marks(r.stdout)
    if win:
        check("--keep=1s: the time asked", win["keep_ns"] == KEEP_NS,
              str(win["keep_ns"]))
        check("--keep=1s: first event in the phase before the last, or after",
              win["first_ns"] >= (marks["phase_e"] - 5) * 1000000,
              "%d ns, phase_e at %d ms" % (win["first_ns"], marks["phase_e"]))
        check("--keep=1s: the last phase whole",
              got.get("phases::phase_f") == 1, str(got.get("phases::phase_f")))
    # it starts between phase_e's start and phase_f's: maybe inside
    # phase_e -> run -> leaf (a block that holds phase_e's last events
    # and phase_f's first), always inside main
    running = partial_calls(rtrace, timed)
    check("--keep=1s: calls running at its start",
          running.get("phases::main") == (0, 1) and
          "phases::phase_f" not in running and
          all(p == 1 for _, p in running.values()), str(running))


if __name__ == "__main__":
    sys.exit(driver.side_main(__doc__, "phases", body))
