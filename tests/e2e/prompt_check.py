#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rtrace -i through a pseudo-terminal.

    prompt_check.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

Drives the prompt the way a person does, keys and all, on the recursion
fixture (arguments 3 7 12: descend is called 4 times, first with 3):

  patterns     a break on a misspelt function: the run says so at the
               line of the break, with the right name, and does not start;
               the prompt goes on
  completion   Tab completes a command word (tbrea -> tbreak), a
               function name of the program (recursion::desc ->
               recursion::descend), and a double Tab lists the topics of
               `info`; Ctrl-U clears the line; Ctrl-C drops it and the
               prompt stays
  break        the tbreak stops the program at the first call; print
               arg0, backtrace and info report (one call of descend so
               far) look at it; the up arrow brings back the
               last line; continue lets the program end
  expect       an expect that holds says so, one that fails says why with
               the fixture's count; quit then ends with exit status 1
  history      the lines are kept in $HOME/.rtrace_history
  piped        without a terminal, lines are read as they come and no
               prompt is printed; a bad line is said and counts (exit 1)

Each check prints OK or NG; the exit status is 0 only when none is NG.
"""
import os
import pty
import re
import select
import signal
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402

PROMPT = b"(rtrace) "
STOPPED = b"(rtrace: stopped) "


def row(name, ok, detail=""):
    """A check's line; what the terminal showed only when it failed."""
    driver.row(name, ok, detail if not ok else "")


class Pty:
    """rtrace -i on a pseudo-terminal; read() collects what it shows."""

    def __init__(self, argv, home):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["HOME"] = home
            os.environ["TERM"] = "xterm"
            os.execv(argv[0], argv)
        self.seen = b""

    def read_until(self, want, timeout=20.0):
        """Output until @want shows up (or the time is out); returns it."""
        out, end = b"", time.monotonic() + timeout
        while want not in out and time.monotonic() < end:
            r, _, _ = select.select([self.fd], [], [], 0.1)
            if not r:
                continue
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data
        self.seen += out
        return out

    def send(self, keys, want, timeout=20.0):
        os.write(self.fd, keys)
        return self.read_until(want, timeout)

    def wait(self, timeout=20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            self.read_until(b"\0", 0.2)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        return None


def show(b):
    return repr(b[-300:])


def session(rtrace, exe, home):
    p = Pty([rtrace, "-i", exe, "3", "7", "12"], home)
    out = p.read_until(PROMPT)
    row("prompt shown", PROMPT in out, show(out))

    out = p.send(b"break recursion::descen\r", PROMPT)
    out = p.send(b"run\r", PROMPT)
    row("a pattern that names nothing: said at the run, with a suggestion",
        b"rtrace: <prompt>:1:7: pattern 'recursion::descen' matches no function in "
        in out and b"(did you mean 'recursion::descend'?)" in out
        and b"<prompt>:2:1: run: the program could not be started" in out, show(out))
    out = p.send(b"delete\r", PROMPT)
    out = p.send(b"info \t\t", b"threads")
    row("double Tab lists the topics of info",
        all(w in out for w in (b"threads", b"breaks", b"counters")), show(out))
    p.send(b"\x15", b"\x1b[K")  # Ctrl-U: the line is empty again
    out = p.send(b"echo dropped\x03", PROMPT)
    out += p.send(b"echo kept\r", PROMPT)
    row("Ctrl-C drops the line, the prompt stays",
        b"kept\r\n" in out and b"dropped\r\n" not in out, show(out))
    out = p.send(b"tbrea\t", b"k ")
    row("Tab completes a command", b"k " in out, show(out))
    out = p.send(b"recursion::desc\t", b"end ")
    row("Tab completes a function name", b"end " in out, show(out))
    out = p.send(b"\r", PROMPT)
    row("the break is taken", PROMPT in out and b"rtrace:" not in out, show(out))

    out = p.send(b"run\r", STOPPED)
    row("run stops at the break",
        b"stopped at recursion::descend entry (break 2, thread" in out, show(out))
    out = p.send(b"print arg0\r", STOPPED)
    row("print arg0 at the first call", b"arg0 = 3 (0x3)" in out, show(out))
    out = p.send(b"\x1b[A\r", STOPPED)
    row("up arrow recalls the last line", out.count(b"arg0 = 3 (0x3)") == 1, show(out))
    out = p.send(b"bt 2\r", STOPPED)
    row("backtrace", b"#0  recursion::descend" in out and b"#1  recursion::main" in out,
        show(out))
    out = p.send(b"info report\r", STOPPED)
    row("info report: the calls so far, descend's first one among them",
        b"# ended:    not yet: the program runs on" in out
        and re.search(rb"\n(?:\x1b\[[\d;]*m)? +1 .* recursion::descend[\r\x1b]", out) is not None, show(out))
    out = p.send(b"continue\r", PROMPT)
    row("continue: the program ends",
        b"COUNT recursion::descend 4" in out and out.endswith(PROMPT), show(out))

    out = p.send(b"expect calls recursion::descend == 4\r", PROMPT)
    row("expect that holds", b"expect held" in out, show(out))
    out = p.send(b"expect calls recursion::descend > 4\r", PROMPT)
    row("expect that fails, with the fixture's count",
        b"expect failed: recursion::descend was called 4 times (expected > 4)" in out,
        show(out))
    p.send(b"quit\r", b"\0", 2.0)
    code = p.wait()
    row("quit: exit status 1 after a failed expect", code == 1, "exit %r" % code)
    try:
        with open(os.path.join(home, ".rtrace_history"), encoding="utf-8") as f:
            hist = f.read()
    except OSError as e:
        hist = str(e)
    row("history kept in $HOME/.rtrace_history", "run" in hist and "quit" in hist, hist)


def piped(rtrace, exe):
    """Without a terminal: lines read as they come, no prompt printed."""
    import subprocess
    r = subprocess.run([rtrace, "-i", exe, "3", "7", "12"], capture_output=True,
                       input=b"tbreak recursion::descend\nrun\nprint arg0\nc\n"
                             b"expect calls recursion::descend == 4\n",
                       timeout=60)
    row("piped: commands run, no prompt shown, exit 0",
        r.returncode == 0 and b"arg0 = 3 (0x3)" in r.stdout and b"expect held" in r.stdout
        and b"(rtrace" not in r.stdout, "exit %d %r" % (r.returncode, r.stdout[-300:]))
    r = subprocess.run([rtrace, "-i", exe], capture_output=True, input=b"frob\necho after\n",
                       timeout=60)
    row("piped: a bad line is said, the next runs, exit 1",
        r.returncode == 1 and r.stdout == b"after\n" and r.stderr ==
        b"rtrace: <prompt>:1:1: unknown command 'frob' (help lists the commands)\n",
        "exit %d %r %r" % (r.returncode, r.stdout, r.stderr))


def main():
    def body(rtrace, exe, home):
        session(rtrace, exe, home)
        piped(rtrace, exe)
    return driver.side_main(__doc__, "recursion", body)


if __name__ == "__main__":
    sys.exit(main())
