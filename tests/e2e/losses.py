#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Events the program did not record: counted in the log, marked in the views.

    losses.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

The fixture tests/fixtures/threads.rs (8 threads calling a tiny leaf,
-O3) counts its own calls.  rtrace records it and is stopped (SIGSTOP)
for 4 s in the middle of the run, then continued (SIGCONT): the threads'
rings fill, they wait 3 s for rtrace, then turn recording off and run on,
counting the events they do not record.  Two outcomes are allowed, and
each run must be one of them:

  exact      the report's leaf count is the program's own, and the report
             says nothing was lost (the program ended before recording
             went off)
  marked     the count is lower, and the JSON says how many events were
             lost (at least as many as the calls missing), the leaf row
             carries the mark "lost", and the text report has the "lost:"
             header line and the L mark in the row and the legend; the
             tree's header and the HTML page's say it, the CSV row has L

  full       a full log
  keep=none  --keep=none: the profile made while recording
  cut        the full log cut at 3 random points after its first LOST
             block: each still says events were lost
  diff       `rtrace diff` of that log against itself says, on the leaf's
             row, that both counts are lower bounds
  expect     a scripted run, stopped the same way: its `expect calls
             threads::leaf == N` (N the program's own count) holds when the
             run was exact, else fails saying the count is a lower bound
  fsize      rtrace under a 64 MiB file size limit (ulimit -f) records a
             run whose log would be larger: jump probes all the same (the
             event area fits under the limit), rtrace exits with the
             program's status 0 and says where the log stopped; the report
             says the program exited 0, the log was cut at the file size
             limit, and marks the counts (lower than the program's own)
  setuid     a set-user-ID copy of the fixture, traced by a user who does
             not own it: rtrace says the program runs with that user's ids
             (SKIP when the tests cannot run as another user)

Each check prints OK or NG (or SKIP when the run happened to be exact);
the exit status is 0 only when none is NG.
"""
import os
import random
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from driver import calls, row  # noqa: E402

PER_THREAD = 2000000
BLK_LOST = 11


def stopped_run(cmd, exe):
    """rtrace's @cmd runs the fixture, rtrace stopped for 4 s 0.5 s in:
    (rtrace's exit status, its stderr, the program's own counts)."""
    rt = subprocess.Popen(cmd + ["--", exe, str(PER_THREAD), "10"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    rt.send_signal(signal.SIGSTOP)
    time.sleep(4)
    rt.send_signal(signal.SIGCONT)
    out, err = rt.communicate(timeout=300)
    return rt.returncode, err, driver.counts(out)


def leaf_row(rep):
    rows = [f for f in rep["functions"] if f["name"] == "threads::leaf"]
    return rows[0] if rows else {}


def check_outcome(args, tag, log, truth):
    """Exact, or lower and marked: whether it was marked."""
    rep = driver.report_json(args.rtrace, log)
    if rep is None:
        row(tag + "the report reads", False)
        return False
    got, lost = calls(rep, "threads::leaf"), rep.get("lost_events", 0)
    marks = leaf_row(rep).get("marks", [])
    if got == truth:
        row(tag + "exact: the program's own count, nothing said lost",
            lost == 0 and "lost" not in marks, "%d calls, %d lost" % (got, lost))
        return False
    row(tag + "lower: the JSON says how many events were lost, the row is marked",
        got < truth and truth - got <= lost and "lost" in marks,
        "%d of %d calls, %d events lost, marks %s" % (got, truth, lost, marks))
    r = driver.run([args.rtrace, "report", log])
    text = r.stdout if r else ""
    leaf = [l for l in text.splitlines() if re.search(r"\sthreads::leaf( \[|$)", l)]
    row(tag + "lower: the text report's header, row and legend say so",
        re.search(r"^# lost: +[\d,]+ events not recorded \(rtrace did not answer",
                  text, re.M) is not None and leaf and " L " in leaf[0] + " "
        and "\nL: lost: " in text, text[:600])
    views = {}
    # a profile log (--keep=none) has no calls for the tree or the page
    for view, cmd in (("tree", ["report", "--tree"]), ("html", ["export", "--format", "html"]),
                      ("csv", ["report", "--format", "csv"])):
        r = driver.run([args.rtrace] + cmd + [log])
        views[view] = r.stdout if r and r.returncode == 0 else None
    csv_leaf = [l for l in (views["csv"] or "").splitlines() if l.startswith("threads::leaf,")]
    profile = views["tree"] is None and views["html"] is None
    row(tag + "lower: the tree's header, the page's and the CSV row's marks say so",
        (profile or ("\n# lost:     " in views["tree"] and "<td>lost</td>" in views["html"]))
        and csv_leaf and re.search(r",[A-Z]*L[A-Z]*,", csv_leaf[0]) is not None,
        "%s %s" % ((views["tree"] or "")[:300], csv_leaf))
    return True


def lost_blocks(log):
    """The file offsets where the LOST blocks of @log end."""
    ends = []
    with open(log, "rb") as f:
        data = f.read()
    at = struct.unpack_from("<I", data, 12)[0]
    while at + 8 <= len(data):
        kind, n = struct.unpack_from("<II", data, at)
        at += 8 + n
        if kind == BLK_LOST and at <= len(data):
            ends.append(at)
    return ends, len(data)


def check_cut(args, log, tmp):
    ends, size = lost_blocks(log)
    if not ends:
        row("cut: a log cut after its first LOST block still says so", False,
            "no LOST block in a log whose report says events were lost")
        return
    rng = random.Random(40)
    bad = []
    for _ in range(3):
        at = rng.randrange(ends[0], size)
        cut = os.path.join(tmp, "cut.rtrace")
        with open(log, "rb") as f, open(cut, "wb") as g:
            g.write(f.read(at))
        rep = driver.report_json(args.rtrace, cut)
        if not rep or rep.get("lost_events", 0) <= 0 or \
                "lost" not in leaf_row(rep).get("marks", []):
            bad.append("at %d of %d: %s" % (at, size, rep and rep.get("lost_events")))
    row("cut: a log cut at 3 random points after its first LOST block still says "
        "events were lost", not bad, "; ".join(bad))


def check_diff(args, log):
    r = driver.run([args.rtrace, "diff", log, log])
    leaf = [l for l in (r.stdout if r else "").splitlines() if "threads::leaf" in l]
    row("diff: a run against itself says both leaf counts are lower bounds",
        r is not None and r.returncode == 0 and leaf and
        leaf[0].endswith("threads::leaf (both counts are lower bounds)"), leaf)


def check_expect(args, exe, tmp, truth):
    """A scripted run, stopped the same way: its expect of the program's
    own count holds when the run was exact, else fails saying why; the
    expect that a lower bound decides holds either way."""
    script = os.path.join(tmp, "lost.rtx")
    with open(script, "w") as f:
        f.write("trace threads::*\nrun\nexpect calls threads::leaf == %d\n"
                "expect calls threads::leaf >= 1\n" % truth)
    rc, err, own = stopped_run([args.rtrace, "-x", script], exe)
    fails = err.count("expect failed")
    row("expect: == the program's count holds, or fails saying the count is a lower bound",
        own.get("threads::leaf") == truth and
        ((rc == 0 and fails == 0) or
         (rc != 0 and fails == 1 and "lower bound" in err)), "exit %d %s" % (rc, err[-400:]))


def check_fsize(args, exe, tmp):
    limit = 64 << 20
    log = os.path.join(tmp, "fsize.rtrace")

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    r = subprocess.run([args.rtrace, "record", "-o", log, "-f", "threads::*", "--",
                        exe, "1500000", "10"], capture_output=True, text=True,
                       timeout=300, preexec_fn=limited)
    own = driver.counts(r.stdout).get("threads::leaf")
    row("fsize: rtrace exits with the program's status 0 and says the log hit the limit",
        r.returncode == 0 and own == 8 * 1500000 + 28 and
        "the log is cut at rtrace's file size limit" in r.stderr
        and "breakpoints everywhere" not in r.stderr,
        "exit %d %s" % (r.returncode, r.stderr[-400:]))
    rep = driver.report_json(args.rtrace, log)
    got = calls(rep, "threads::leaf") if rep else -1
    row("fsize: the report: exited 0, cut at the file size limit, counts marked",
        rep is not None and rep.get("end") == "exited" and rep.get("exit_status") == 0
        and rep.get("cut_for_file_size") is True and 0 < got < own
        and "lost" in leaf_row(rep).get("marks", []) and os.path.getsize(log) <= limit,
        rep and "%s %s %s of %s, %d bytes" % (rep.get("end"), rep.get("exit_status"), got, own,
                                             os.path.getsize(log)))


def check_setuid(args, exe, tmp):
    if os.geteuid() != 0:
        row("setuid: a set-user-ID program traced by another user", "SKIP",
            "needs root to make the program and switch users")
        return
    d = tempfile.mkdtemp(prefix="rtrace-setuid-", dir="/tmp")
    try:
        os.chmod(d, 0o777)  # nobody writes the log there
        prog = os.path.join(d, "threads-suid")
        shutil.copy(exe, prog)
        os.chmod(prog, 0o4755)  # root's, set-user-ID

        def nobody():
            os.setgid(65534)
            os.setuid(65534)
        r = subprocess.run([args.rtrace, "record", "-o", os.path.join(d, "s.rtrace"),
                            "-f", "threads::*", "--", prog, "100", "10"],
                           capture_output=True, text=True, timeout=120, preexec_fn=nobody,
                           cwd=d)
        row("setuid: rtrace says a set-user-ID program runs with the user's ids",
            "is set-user-ID: traced without privilege, it runs with your ids" in r.stderr
            and r.returncode == 0, "exit %d %s" % (r.returncode, r.stderr[-300:]))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    args = driver.options()
    exe = driver.fixture(args, "threads", "3")
    truth = 8 * PER_THREAD + 28
    with tempfile.TemporaryDirectory(prefix="rtrace-losses-") as tmp:
        marked_log = None
        for name, extra in (("full", ()), ("keep=none", ("--keep=none",))):
            log = os.path.join(tmp, name + ".rtrace")
            rc, err, own = stopped_run([args.rtrace, "record", "-o", log] +
                                       list(extra) + ["-f", "threads::*"], exe)
            tag = name + ": "
            row(tag + "the program ends as natively, rtrace exits 0",
                rc == 0 and own.get("threads::leaf") == truth,
                "exit %d, %s %s" % (rc, own.get("threads::leaf"), err[-300:]))
            if check_outcome(args, tag, log, truth) and name == "full":
                marked_log = log
        if marked_log:
            check_cut(args, marked_log, tmp)
            check_diff(args, marked_log)
        else:
            row("cut: a run that lost events", "SKIP", "the run was exact")
        check_expect(args, exe, tmp, truth)
        check_fsize(args, exe, tmp)
        check_setuid(args, exe, tmp)
    return driver.finish()


if __name__ == "__main__":
    sys.exit(main())
