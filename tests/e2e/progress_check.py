#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The progress line and the interim report (SIGUSR1).

    progress_check.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

On the busywait fixture (K parents, each calling leaf twice: by
construction leaf's calls are twice parent's, less what the parent still
running has not made yet, 0 to 2):

  terminal     rtrace on a pseudo-terminal shows the progress line
               (elapsed, calls, events/s, stops, log size), rewritten in
               place; SIGUSR1 prints an interim report whose counts are
               the fixture's so far (fewer parents than K, leaves 2p-2
               to 2p) and says the program runs on; the line is erased
               before the interim report, the program's end and the
               summary, and never drawn inside a report
  attached     the same with -p on a running busywait (the parent it
               joins running is not a call, its leaves after are)
  quiet        -q on a terminal: no line
  pipe         stderr a pipe: neither the line nor an interim report
               unless asked; SIGUSR1 still prints one (it was asked for);
               --progress prints a plain line a second, no escapes

Each check prints OK or NG; the exit status is 0 only when none is NG.
"""
import os
import re
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from prompt_check import Pty, row, show  # noqa: E402

K = 300  # parents: 1.5 s of spinning at least
LINE = re.compile(rb"\rrtrace: \d+\.\d s, [\d,]+ calls, [\d,]+ events/s, "
                  rb"[\d,]+ stops, log [\d.]+ (B|KiB|MiB)\x1b\[K")
INTERIM = b"rtrace: interim report (the trace goes on)"


def counts(report, name):
    """The calls column of @name's row in a text report, or None."""
    m = re.search(rb"^\s*(?:\x1b\[[\d;]*m)?\s*(\d+) .*  %s(?:[\s\x1b]|$)" %
                  re.escape(name.encode()), report, re.M)
    return int(m.group(1)) if m else None


def check_interim(label, out, k, joined=0):
    """The interim report in @out: the fixture's counts so far; @joined
    leaves more at most when rtrace joined a parent already running."""
    at = out.find(INTERIM)
    end = out.find(b"rtrace: traced", at)
    report = out[at:end] if at >= 0 else b""
    row("%s: SIGUSR1 prints an interim report" % label,
        at >= 0 and b"# ended:    not yet: the program runs on" in report, show(out))
    # the report ends at its last line; the progress line may follow it
    body = report[:report.rfind(b"avg/min/max")]
    row("%s: no progress line inside the interim report" % label,
        body and not LINE.search(body), show(body))
    # a parent still running counts, with 0, 1 or 2 of its leaves
    p, leaf = counts(report, "busywait::parent"), counts(report, "busywait::leaf")
    row("%s: the interim counts are the fixture's so far" % label,
        p is not None and leaf is not None and 0 < p < k and 2 * p - 2 <= leaf <= 2 * p + joined,
        "parent %r leaf %r" % (p, leaf))


def terminal(rtrace, exe, tmp):
    log = os.path.join(tmp, "pty.data")
    p = Pty([rtrace, "-o", log, exe, str(K)], tmp)
    out = p.read_until(b"events/s", 30)
    row("terminal: the progress line", LINE.search(out) is not None, show(out))
    p.read_until(b"events/s", 5)  # a second draw: the first one's rate is from start
    os.kill(p.pid, signal.SIGUSR1)
    p.read_until(b"rtrace: traced", 60)
    code = p.wait()
    out = p.seen
    row("terminal: exit status of the program", code == 0, "exit %r" % code)
    row("terminal: rewritten in place", len(LINE.findall(out)) >= 2, show(out))
    check_interim("terminal", out, K)
    summary = out.find(b"rtrace: traced")
    row("terminal: erased before the summary, not drawn after it",
        summary > 0 and out[:summary].endswith(b"\r\x1b[K")
        and b"events/s" not in out[summary:], show(out[summary - 80:summary + 40]))
    final = counts(out[summary:], "busywait::parent")
    row("terminal: the final report has every call", final == K, "parent %r" % final)


def attached(rtrace, exe, tmp):
    prog = subprocess.Popen([exe, str(2 * K)], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.2)
        log = os.path.join(tmp, "attach.data")
        p = Pty([rtrace, "-p", str(prog.pid), "--duration", "2s", "-o", log], tmp)
        out = p.read_until(b"events/s", 30)
        row("attached: the progress line", LINE.search(out) is not None, show(out))
        p.read_until(b"events/s", 5)
        os.kill(p.pid, signal.SIGUSR1)
        p.read_until(b"rtrace: traced", 60)
        code = p.wait()
        row("attached: rtrace ends when the duration is over", code == 0, "exit %r" % code)
        check_interim("attached", p.seen, 2 * K, 2)
    finally:
        code = prog.wait(timeout=60)
    row("attached: the program runs to its end", code == 0, "exit %r" % code)


def quiet(rtrace, exe, tmp):
    p = Pty([rtrace, "-q", "-o", os.path.join(tmp, "q.data"), exe, "100"], tmp)
    code = p.wait(60)
    row("quiet: no progress line on a terminal",
        code == 0 and b"events/s" not in p.seen and b"\x1b[K" not in p.seen, show(p.seen))


def piped(rtrace, exe, tmp):
    log = os.path.join(tmp, "pipe.data")
    r = subprocess.run([rtrace, "-o", log, exe, "100"], capture_output=True, timeout=120)
    row("pipe: neither the line nor an interim report",
        r.returncode == 0 and b"events/s" not in r.stderr and b"\x1b" not in r.stderr
        and INTERIM not in r.stderr and b"rtrace: traced" in r.stderr, show(r.stderr))
    t0 = time.monotonic()
    prog = subprocess.Popen([rtrace, "--progress", "-o", log, exe, str(K)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.0)
    prog.send_signal(signal.SIGUSR1)
    _, err = prog.communicate(timeout=120)
    secs = time.monotonic() - t0   # a loaded machine makes the run longer
    lines = [ln for ln in err.split(b"\n") if b"events/s" in ln]
    row("pipe: --progress prints plain lines, about one a second",
        prog.returncode == 0 and 1 <= len(lines) <= secs + 2
        and b"\x1b[K" not in err
        and all(LINE.match(b"\r" + ln + b"\x1b[K") for ln in lines), show(err))
    check_interim("pipe", err, K)


def main():
    def body(rtrace, exe, tmp):
        terminal(rtrace, exe, tmp)
        attached(rtrace, exe, tmp)
        quiet(rtrace, exe, tmp)
        piped(rtrace, exe, tmp)
    return driver.side_main(__doc__, "busywait", body)


if __name__ == "__main__":
    sys.exit(main())
