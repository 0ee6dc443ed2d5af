#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rtrace end-to-end test runner.

    runtest.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR CASE.py...

Builds the case's Rust fixture, runs it natively and under `rtrace record`,
then compares `rtrace report --format json` with the counts the fixture
printed itself.  Prints one table row per (case, build, check) with
OK / NG / SKIP and the expected and obtained figures; exits 0 only when no
row is NG.  Python 3 standard library only (plus binutils' `nm` and
`objdump` for objdump_expect).

FIXTURES  (DIR/<name>.rs, one std-only file each; crate name = file stem)

  Each fixture counts its own calls by construction and prints, on stdout:
    COUNT <path> <n>                 calls of the functions named <path>;
                                     lines of the same path add up (each
                                     process of a program prints its own)
    COUNTI <name> <n>                calls of one v0-named instance
    TIME <path> <total_ns> <self_ns> per-call total and self times
    NATIVE <path> <ns>               a leaf's fastest call measured by the
                                     fixture itself, untraced (on a twin
                                     that the case's patterns do not
                                     select): rtrace's fastest call
    TIMED <path> <n> <ns>            n calls of <path> have a time (an
                                     inlined call whose end rtrace can
                                     probe) and each took ns at least
                                     (a sleep of known length)
    UNWOUND <path> <n>               activations of <path> left by
                                     unwinding (a panic), not by a return;
                                     lines of the same path add up
    TCOUNT <path> <n>                one thread made n calls of <path>: one
                                     line per thread (order does not matter)
    BLOCKED <path> <ns> <self_ns>    <path>'s calls spent ns at least in
                                     libc's blocking calls (sleeps of known
                                     length), and their own time is at
                                     most self_ns (a generous ceiling)
    ONCPU <path> <ns>                <path>'s calls ran ns at least of their
                                     own (spins, by the program's clock)
                                     and blocked nearly never
    PCOUNT <label> <path> <n>        the process <label> (a word naming its
                                     role: parent, child...) made n calls
                                     of <path>; PCOUNT lines do not add to
                                     COUNT (print both)
  <path> may contain spaces (`<traits::Circle as traits::Shape>::area`);
  the numbers are the last fields of the line.

CASE FILES  (cases/t###_name.py: module-level variables, nothing else;
             names that start with `_` are the case's own helpers, e.g. a
             loop bound or a function used to compute an expectation)

  fixture         str    stem of the fixture to build (required,
                         except by a bad-input case that uses none)
  args            list   arguments of the fixture              []
  patterns        list   one `-f GLOB` each                    [fixture + "::*"]
  exclude         list   one `--exclude GLOB` each             []
  record_options  list   further `rtrace record` options       []
  opt_levels      list   rustc -C opt-level values             ["0", "3"]
  v0              bool   also build each level with
                         -C symbol-mangling-version=v0         False
  time_tolerance  float  relative tolerance of TIME checks     0.10
  trap_time_tolerance float  the same under --engine trap, where a
                         call's times carry the compensation of
                         every stop inside it            time_tolerance
  time_floor_ns   int    TIME and NATIVE checks pass within
                         this many ns even when that is more
                         than time_tolerance (tiny functions)   0
  time_runs       int    traced runs whose median TIME checks
                         compare (the machines are noisy)       3
  timeout         int    seconds allowed to each run           120
  expect_fail     dict   makes it a bad-input case (below)     None
  cut_bytes       int    size of {cut_log}                     10
  repeat          int    run every check of a build N times    1
                         (rows labelled O3#2 and so on): for
                         races, e.g. between threads
  libtest         bool   build with `rustc --test`: a libtest
                         harness, as `cargo test` runs         False
  counts          dict   {path: n}: the expected COUNTs, by
                         construction in the case; replaces
                         the fixture's COUNT lines (a libtest
                         binary cannot print its own)          None
  count_only_process
                  str    only the process with this PCOUNT
                         label is recorded (e.g. with
                         --no-follow): COUNT expectations are
                         that label's PCOUNT lines, and 0 for
                         every other path the fixture names    None
  by_test         dict   {test: {path: n}}: calls per libtest
                         test, by construction (see below)     None
  test_threads_compare
                  bool   libtest: record a second run with
                         --test-threads=1 and check it too     False
  objdump_expect  dict   {function: [fact, ...]}: the code
                         shape the fixture relies on (below)   None
  expect_exit     int    the exit status of the program, by
                         construction (checked on the native
                         run and under rtrace)                 native run's
  expect_end      str    the report's "end", or a list of    "exited"
                  /list  the values allowed                    ("interrupted"
                                                               with interrupt)
  breakpoint_sites list  with the inline engine, the functions
                         that keep a breakpoint on some site (the
                         report's "breakpoint_sites"), exactly  None
  sites_expect    dict   {opt level: {function: [regex, ...]}}: with
                         the inline engine, in builds at that level,
                         `rtrace -l -v` with the case's patterns says
                         how each site is patched; some line listed
                         under a function of that name (the lines
                         after its own, up to the next function) must
                         match each regex, e.g. "^hop at entry",
                         "moves a call", "^inlined into x::f .*: jump"
                         (so the case fails when the fixture stops
                         exercising a way of patching)          None
  inlined         dict   {opt level: [path, ...]}: in builds at
                         that level, every call of each path was
                         inlined by the compiler: the report's
                         "inlined_calls" of its functions add up
                         to their "calls", and that is not 0
                         (the code shape the case relies on,
                         and rtrace saw it)                    None
  inline_share    dict   {opt level: fraction}: with the inline
                         engine (not --engine trap), the least
                         share of events recorded without a stop,
                         read from --stats (added to the record
                         command)                              None
  stop_cost       bool   with the inline engine, whether the
                         log holds a measured stop cost: it is
                         measured after the run, and only when a
                         stop fell inside a traced call (under
                         --engine trap it always is, and that is
                         checked on every timed case)          None
  interrupt       dict   send a signal during the run (below)  None
  self_counted    bool   the fixture's figures differ from run
                         to run (it counts what really ran,
                         e.g. a loop that runs until enough
                         timer signals came): expectations are
                         read from the stdout of the run under
                         rtrace, and stdout is compared with
                         the native run's with every number
                         masked                                False

CHECKS OF A NORMAL CASE, for each build (O0, O3, O0-v0, O3-v0)

  build            rustc --edition 2021 -C opt-level=N -g [-C symbol-mangling-
                   version=v0] [--test]; cached in --build (rebuilt when the
                   source is newer), written under a temporary name and
                   renamed, so parallel runners can share the directory
  objdump ...      objdump_expect, in builds at an opt level other than "0"
                   (the facts are about LLVM's optimised code); once per
                   build.  For each function (its demangled name, legacy
                   form; every symbol of that name must comply, and there
                   must be one), its bytes from `nm -S` bounds, disassembled
                   by `objdump -d --no-show-raw-insn`, must show each fact:
                     "jmp"          an unconditional jmp that leaves the
                                    function: direct, or through a
                                    RIP-relative memory slot (a GOT entry,
                                    resolved with `objdump -R`)
                     "jmp:GLOB"     one whose target's name matches GLOB
                     "jcc", "jcc:GLOB"  the same for a conditional jump
                     "ret"          a ret instruction
                     "no ret"       no ret instruction at all
                   An unmet fact is NG: the fixture would not test what its
                   header claims.
  then `repeat` times:
  native run       the fixture alone; it must print at least one COUNT line
                   (unless the case gives counts, or interrupts the run);
                   with expect_exit, its exit status must be that one.
                   The expectations below are its lines (with self_counted:
                   the lines of the run under rtrace)
  record ...       `rtrace record -o LOG -f GLOB... -- FIXTURE ARGS`: the
                   exit status of the native run (or expect_exit; 128+N for
                   a signal N), the same stdout byte for byte, the same
                   stderr once lines that start with "rtrace: " are removed.
                   A libtest binary's stdout is compared as a sorted list of
                   lines with "finished in N.NNs" blanked: parallel tests
                   finish in any order.  With self_counted, numbers are
                   masked (every run counts different figures)
  report           `rtrace report --format json LOG` exits 0 with valid JSON;
                   its "end" is expect_end and its "exit_status" the
                   expected exit status (128+N for a program killed by N)
  COUNT <path>     the sum of "calls" over the report's functions whose name,
                   in legacy form, is <path> equals n exactly (the sum of the
                   fixture's COUNT lines for <path>).  Legacy form: v0
                   generic arguments `::<...>` removed and `{closure#N}`
                   written `{{closure}}`, which leaves legacy names unchanged
  COUNTI <name>    v0 builds only (SKIP in legacy builds): the sum of "calls"
                   over functions named exactly <name> equals n exactly
  TIME <path>      total_ns/calls and self_ns/calls, summed over the
                   functions selected as for COUNT, against the figures
                   the fixture printed in the same traced run (what its
                   busy-waits took by its own clock): the median over
                   time_runs traced runs of the difference is within
                   time_tolerance of the median figure (or time_floor_ns,
                   whichever is larger).  SKIP, with the load, when the
                   machine has more than 1.5 runnable processes per CPU,
                   unless RTRACE_STRICT_TIMES=1
  NATIVE <path>    the same check for the report's min_ns (the smallest
                   over the functions selected) against <ns>: the fastest
                   call is the one no preemption stretched, traced or not
  --count          with "--count" in record_options: the report's "mode"
                   is "count"; COUNT and TCOUNT exact as above; no TIME
                   or NATIVE checks (the log has no times)
  --coverage       with "--coverage" in record_options: "mode" is
                   "coverage"; every row has calls == 1; a COUNT path with
                   n > 0 has calls == 1 in each of its rows, one with n == 0
                   none; "not_called" (legacy form) lists exactly the COUNT
                   paths with n == 0; no TCOUNT, TIME or NATIVE checks
  TIMED <path>     the sum of "timed_calls" over the same functions
                   equals n exactly, and their smallest "min_ns" is at
                   least ns less time_tolerance (trap_time_tolerance
                   under --engine trap: what the tracer's cost
                   taken out may be off by; SKIP when the machine is
                   busy, as TIME); not with --count or --coverage (no
                   times)
  BLOCKED <path>   the sum of "blocked_ns" over the same functions is at
                   least ns less time_tolerance (trap_time_tolerance under
                   --engine trap; SKIP when the machine is busy, as TIME),
                   and the sum of their "self_ns" at most self_ns
  ONCPU <path>     their "self_ns" at least ns less the tolerance (SKIP when
                   busy), their "blocked_ns" at most 1 % of it
  UNWOUND <path>   the sum of "unwound" over the same functions equals n
  TCOUNT <path>    `rtrace report --by thread --format json LOG`: the calls
                   of <path> per "tid", zeros left out, sorted, equal the
                   sorted n of the TCOUNT lines (the fixture cannot know its
                   thread ids; it knows what each thread did)
  PCOUNT <path>    the same with `--by process` and "pid"
  by test          with by_test: `rtrace report --by test --format json LOG`
                   (rows carry "test", the test's name as libtest prints it,
                   or "(no test)"): for each path, the calls of every listed
                   test equal by_test's; the calls of all rows, "(no test)"
                   included, add up to the COUNT total; and no test outside
                   by_test calls the path
  --test-threads=1 with test_threads_compare: the record, report, COUNT and
                   by-test checks again on a run with --test-threads=1
                   appended to args (libtest runs one test at a time), and
                   every function's calls equal those of the default run

  by_test example (the counts come from the construction, never from a run):
      _leaf = lambda i: 3 * i + 1
      by_test = {"tests::case_%02d" % i: {"mycrate::leaf": _leaf(i)}
                 for i in range(40)}

INTERRUPTED RUNS (a case with interrupt)

  interrupt = {"signal": "SIGINT", "after": 1.0, "to": "group"}
  The program runs under rtrace's live mode (`rtrace -o LOG -f GLOB...
  -- FIXTURE ARGS`, no subcommand: it records, then prints the report on
  stderr).  After `after` seconds the runner sends `signal` to rtrace's
  process group ("group": rtrace and the program, as a terminal's ^C does)
  or to rtrace alone ("rtrace").  The native run gets the same signal
  after the same time (to the program).  The fixture prints no COUNT lines
  (it is stopped first).  Checks: exit status (expect_exit, e.g. 130 for
  SIGINT), stdout unchanged, the report's table header (a line
  "calls ... function") on stderr, and the log read back by `rtrace report`:
  its "end" and "exit_status", and at least one call recorded.  The program
  stderr is not compared (it shares stderr with the report).

SESSION CASES (a case with session: rtrace -x, a command file)

  session = {
      "script": "docs/examples/ci.rtx",  # a file of the source tree, or
      "text": "trace x::*\nrun\n...",  # the commands themselves
      "exit": 1,                         # rtrace's exit status (required)
      "stdout_contains": ["..."],        # substrings, in this order
      "stdout_matches": [r"..."],        # regexes (multi-line)
      "stderr_contains": ["..."],        # substrings, in this order
      "stderr_matches": [r"..."],        # regexes
      "stderr_lines": 2,                 # exact number of lines
      "stdout_empty": True,              # nothing on stdout
      "stdout_lacks": ["..."],           # substrings that must not show
      "files": ["run.rtrace"],           # files the session wrote in {tmp}
      "program": True,                   # pass -- FIXTURE ARGS (default)
  }
  For each build: the fixture runs natively first; then `rtrace -x SCRIPT
  -- FIXTURE ARGS` runs in {tmp}.  Placeholders in the text and in every
  expected string: {tmp}, {fixture}, {missing} (as above), and
  {count:PATH}, {count:PATH+N}, {count:PATH-N}: the fixture's own COUNT
  for PATH (plus or minus N), so that expectations and the counts a
  failing expect reports come from the construction.  Every stderr line
  must start with "rtrace: ".

BAD-INPUT CASES

  expect_fail = {
      "argv": ["record", "-o", "{tmp}/x.log", "-f", "a::*", "--", "{missing}"],
      "exit_nonzero": True,           # (default) exits non-zero, not by a signal
      "stderr_lines": 1,              # exact number of lines on stderr
      "stderr_contains": ["{missing}"],  # substrings
      "stderr_matches": [r"no such"], # regexes, case-insensitive
      "stdout_empty": True,           # nothing on stdout
  }
  "argv" is rtrace's argument list.  Every line of stderr must start with
  "rtrace: ".  Placeholders in "argv" and "stderr_contains":
    {tmp}        a fresh temporary directory (also the working directory)
    {fixture}    the fixture, built at opt_levels[0]
    {prog}       a copy of {fixture} named "prog": a path that does not
                 give the crate's name away
    {stripped}   a copy of {fixture} run through `strip`
    {text_exec}  an executable text file (no #! line): not an ELF file
    {missing}    a path that does not exist
    {not_log}    a text file that is not an rtrace log
    {log}        a real log: `rtrace record` of {fixture} with patterns/args
    {cut_log}    {log} truncated to cut_bytes bytes

ENVIRONMENT
  Runs have RLIMIT_CORE 0 (no core files from programs killed by a signal).

EXIT STATUS
  0  every row OK or SKIP      1  some row NG      2  usage or setup error
  (a missing rustc or rtrace is a setup error: the run fails loudly)
"""

import collections
import concurrent.futures
import fnmatch
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from driver import Build, build_fixture  # noqa: E402

RTRACE_PREFIX = b"rtrace: "
DEFAULTS = {
    "args": [],
    "patterns": None,  # fixture + "::*"
    "exclude": [],
    "record_options": [],
    "opt_levels": ["0", "3"],
    "v0": False,
    "time_tolerance": 0.10,
    "trap_time_tolerance": None,
    "time_floor_ns": 0,
    "time_runs": 3,
    "timeout": 120,
    "expect_fail": None,
    "cut_bytes": 10,
    "repeat": 1,
    "libtest": False,
    "counts": None,
    "count_only_process": None,
    "by_test": None,
    "test_threads_compare": False,
    "objdump_expect": None,
    "expect_exit": None,
    "expect_end": None,  # "exited", or "interrupted" with interrupt
    "interrupt": None,
    "self_counted": False,
    "inline_share": None,
    "inlined": None,
    "breakpoint_sites": None,
    "stop_cost": None,
    "sites_expect": None,
    "session": None,
}
KNOWN_VARS = set(DEFAULTS) | {"fixture"}
INTERRUPT_TARGETS = ("group", "rtrace")
OBJDUMP_FACT = re.compile(r"^(ret|no ret|(jmp|jcc)(:.+)?)$")
# The header line of rtrace's text table: "     calls       total ... function"
TABLE_HEADER = re.compile(rb"^\s*calls\s.*\bfunction\s*$", re.MULTILINE)


# ---- the table ----------------------------------------------------------

class Table:
    """Rows printed as they come, counted for the summary and exit code."""

    def __init__(self):
        self.counts = {"OK": 0, "NG": 0, "SKIP": 0}

    def row(self, case, build, check, result, expected="", got="", detail=None):
        self.counts[result] += 1
        line = "%-22s %-8s %-50s %-4s  %-20s %s" % (
            case, build, check, result, _clip(expected), _clip(got))
        print(line.rstrip(), flush=True)
        if detail and result == "NG":
            for d in detail.rstrip("\n").split("\n")[:25]:
                print("    | " + d, flush=True)

    def header(self):
        print("%-22s %-8s %-50s %-4s  %-20s %s" % (
            "case", "build", "check", "res", "expected", "got"))
        print("-" * 120)

    def summary(self):
        c = self.counts
        print("-" * 120)
        print("%d OK, %d NG, %d SKIP" % (c["OK"], c["NG"], c["SKIP"]))


def _clip(v, n=60):
    s = str(v)
    return s if len(s) <= n else s[: n - 3] + "..."


def _text(b):
    return b.decode("utf-8", "replace")


# ---- case files ---------------------------------------------------------

def load_case(path):
    scope = {}
    with open(path, encoding="utf-8") as f:
        code = compile(f.read(), path, "exec")
    exec(code, scope)  # noqa: S102 - case files are ours
    case = {k: v for k, v in scope.items()
            if not k.startswith("_") and not callable(v)}
    unknown = set(case) - KNOWN_VARS
    if unknown:
        raise ValueError("%s: unknown variable(s) %s" % (path, ", ".join(sorted(unknown))))
    for k, v in DEFAULTS.items():
        case.setdefault(k, v)
    case.setdefault("fixture", None)
    if not case["fixture"] and not case["expect_fail"]:
        raise ValueError("%s: no 'fixture'" % path)
    if case["patterns"] is None:
        case["patterns"] = [case["fixture"] + "::*"] if case["fixture"] else []
    if case["interrupt"]:
        case["interrupt"] = check_interrupt(path, case["interrupt"])
    if case["expect_end"] is None:
        case["expect_end"] = "interrupted" if case["interrupt"] else "exited"
    if isinstance(case["expect_end"], str):
        case["expect_end"] = [case["expect_end"]]
    for fn, facts in (case["objdump_expect"] or {}).items():
        bad = [f for f in facts if not OBJDUMP_FACT.match(f)]
        if bad:
            raise ValueError("%s: objdump_expect %s: unknown fact(s) %s" % (path, fn, bad))
    case["name"] = os.path.splitext(os.path.basename(path))[0]
    return case


def check_interrupt(path, it):
    """{"signal": "SIGINT", "after": 1.0, "to": "group"} -> checked copy,
    with the signal as a signal.Signals."""
    try:
        sig = signal.Signals[it["signal"]] if isinstance(it["signal"], str) \
            else signal.Signals(it["signal"])
        after = float(it.get("after", 1.0))
        to = it.get("to", "group")
    except (KeyError, ValueError, TypeError) as e:
        raise ValueError("%s: bad interrupt %r (%s)" % (path, it, e))
    if to not in INTERRUPT_TARGETS:
        raise ValueError("%s: interrupt 'to' must be one of %s" % (path, INTERRUPT_TARGETS))
    return {"signal": sig, "after": after, "to": to}


# ---- building fixtures --------------------------------------------------

def build_all(opts, fixture, builds):
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(builds)) as ex:
        list(ex.map(lambda b: build_fixture(opts, fixture, b), builds))


# ---- running programs ---------------------------------------------------

class Run:
    def __init__(self, cmd, rc, out, err, secs, timed_out=False, failed=None,
                 signalled=False):
        self.cmd, self.rc, self.out, self.err = cmd, rc, out, err
        self.secs, self.timed_out, self.failed = secs, timed_out, failed
        self.signalled = signalled  # the interrupt was sent

    def status(self):
        """Exit status as a shell reports it: 128+N when killed by signal N."""
        return 128 - self.rc if self.rc < 0 else self.rc

    def describe(self):
        if self.failed:
            return "could not start: %s" % self.failed
        if self.timed_out:
            return "timed out after %.0f s" % self.secs
        if self.rc < 0:
            try:
                name = signal.Signals(-self.rc).name
            except ValueError:
                name = "signal %d" % -self.rc
            return "killed by %s" % name
        return "exit %d" % self.rc


_running = None  # the process group being waited for, if any


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _on_termination(signum, frame):
    """CTest's timeout or ^C: take rtrace and its tracee down with us."""
    if _running is not None:
        _kill_group(_running)
    sys.exit(128 + signum)


def _send(pid, it):
    """Sends the interrupt: to pid's process group (pid leads it) or to pid."""
    try:
        if it["to"] == "group":
            os.killpg(pid, it["signal"])
        else:
            os.kill(pid, it["signal"])
    except ProcessLookupError:
        return False
    return True


def run(cmd, cwd, timeout, interrupt=None):
    """Runs cmd in a process group of its own (rtrace, its tracee and the
    tracee's children), so that a timeout can kill all of them.  With
    interrupt, sends its signal after its delay (if cmd still runs)."""
    global _running
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    except OSError as e:
        return Run(cmd, 127, b"", b"", 0.0, failed=str(e))
    _running = p.pid
    sent = False
    try:
        if interrupt:
            try:
                out, err = p.communicate(timeout=interrupt["after"])
                return Run(cmd, p.returncode, out, err, time.monotonic() - t0)
            except subprocess.TimeoutExpired:
                sent = _send(p.pid, interrupt)
        out, err = p.communicate(timeout=max(1.0, timeout - (time.monotonic() - t0)))
        return Run(cmd, p.returncode, out, err, time.monotonic() - t0, signalled=sent)
    except subprocess.TimeoutExpired:
        _kill_group(p.pid)
        out, err = p.communicate()
        return Run(cmd, p.returncode, out, err, time.monotonic() - t0, True, signalled=sent)
    finally:
        _running = None


def selection_options(case):
    cmd = []
    for g in case["patterns"]:
        cmd += ["-f", g]
    for g in case["exclude"]:
        cmd += ["--exclude", g]
    return cmd + list(case["record_options"])


def record_cmd(opts, case, exe, log, extra_args=()):
    """`rtrace record`; with interrupt, the live mode (no subcommand)."""
    cmd = [opts.rtrace] + ([] if case["interrupt"] else ["record"]) + ["-o", log]
    if opts.engine:
        cmd += ["--engine", opts.engine]
    if case["inline_share"] and opts.engine != "trap":
        cmd += ["--stats"]
    cmd += selection_options(case)
    return cmd + ["--", exe] + list(case["args"]) + list(extra_args)


def run_detail(r):
    return "$ %s\n%s\nstderr:\n%s" % (
        " ".join(r.cmd), r.describe(), _text(r.err[-3000:]))


# ---- what the fixture says ----------------------------------------------

class Expect:
    """The fixture's lines, by kind; paths in order of first appearance."""

    def __init__(self):
        self.count = collections.OrderedDict()    # path -> n (summed)
        self.counti = []                          # (name, n)
        self.time = []                            # (path, total, self)
        self.native = []                          # (path, ns)
        self.timed = []                           # (path, n, least ns)
        self.blocked = []                         # (path, least, most self)
        self.oncpu = []                           # (path, least self ns)
        self.unwound = collections.OrderedDict()  # path -> n (summed)
        self.tcount = collections.OrderedDict()   # path -> [n per thread]
        self.pcount = []                          # (label, path, n)
        self.stack = []                           # ([paths], n)
        self.mem = []                             # (path, [5 numbers])
        self.peak = []                            # (path, bytes)
        self.allocator = []                       # words

    def empty(self):
        return not (self.count or self.counti or self.time or self.native
                    or self.timed or self.blocked or self.oncpu or self.unwound or self.tcount or self.pcount or self.stack
                    or self.mem or self.peak)


LINE_KINDS = {  # kind -> (leading words before the path, trailing numbers)
    "COUNT": (0, 1), "COUNTI": (0, 1), "TIME": (0, 2), "NATIVE": (0, 1),
    "UNWOUND": (0, 1), "TCOUNT": (0, 1), "PCOUNT": (1, 1), "TIMED": (0, 2),
    "STACK": (0, 1), "MEM": (0, 5), "PEAK": (0, 1), "BLOCKED": (0, 2),
    "ONCPU": (0, 1),
}


def parse_expectations(stdout):
    """The fixture's COUNT/COUNTI/TIME/UNWOUND/TCOUNT/PCOUNT lines."""
    exp = Expect()
    for line in _text(stdout).splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "ALLOCATOR":
            exp.allocator.append(f[1])
            continue
        if not f or f[0] not in LINE_KINDS:
            continue
        nlead, nnum = LINE_KINDS[f[0]]
        if len(f) < 2 + nlead + nnum:
            raise ValueError("malformed line: %r" % line)
        lead = f[1:1 + nlead]
        path = " ".join(f[1 + nlead:-nnum])
        try:
            nums = [int(x) for x in f[-nnum:]]
        except ValueError:
            raise ValueError("malformed line: %r" % line)
        if f[0] == "COUNT":
            exp.count[path] = exp.count.get(path, 0) + nums[0]
        elif f[0] == "COUNTI":
            exp.counti.append((path, nums[0]))
        elif f[0] == "TIME":
            exp.time.append((path, nums[0], nums[1]))
        elif f[0] == "NATIVE":
            exp.native.append((path, nums[0]))
        elif f[0] == "TIMED":
            exp.timed.append((path, nums[0], nums[1]))
        elif f[0] == "BLOCKED":
            exp.blocked.append((path, nums[0], nums[1]))
        elif f[0] == "ONCPU":
            exp.oncpu.append((path, nums[0]))
        elif f[0] == "UNWOUND":
            exp.unwound[path] = exp.unwound.get(path, 0) + nums[0]
        elif f[0] == "TCOUNT":
            exp.tcount.setdefault(path, []).append(nums[0])
        elif f[0] == "STACK":
            exp.stack.append((path.split("|"), nums[0]))
        elif f[0] == "MEM":
            exp.mem.append((path, nums))
        elif f[0] == "PEAK":
            exp.peak.append((path, nums[0]))
        else:
            exp.pcount.append((lead[0], path, nums[0]))
    return exp


def apply_case_counts(case, exp):
    """The case's own statements about counts: `counts` replaces the COUNT
    lines; `count_only_process` keeps one process's PCOUNT lines."""
    if case["counts"] is not None:
        exp.count = collections.OrderedDict(case["counts"])
    label = case["count_only_process"]
    if label is not None:
        paths = list(exp.count) + [p for _, p, _ in exp.pcount]
        only = [(l, p, n) for l, p, n in exp.pcount if l == label]
        exp.count = collections.OrderedDict((p, 0) for p in paths)
        for _, p, n in only:
            exp.count[p] += n
        exp.pcount = only
    return exp


def legacy_form(name):
    """A demangled name as legacy demangling spells it: v0 generic
    arguments `::<...>` removed, `{closure#N}` written `{{closure}}`."""
    out, i, n = [], 0, len(name)
    while i < n:
        if name.startswith("::<", i):
            depth, j = 0, i + 2
            while j < n:
                if name[j] == "<":
                    depth += 1
                elif name[j] == ">":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            i = j + 1
            continue
        out.append(name[i])
        i += 1
    return re.sub(r"\{closure#\d+\}", "{{closure}}", "".join(out))


def select(report, path, exact):
    key = (lambda n: n) if exact else legacy_form
    return [f for f in report.get("functions", []) if key(f.get("name", "")) == path]


def calls_of(fns, key="calls"):
    return sum(int(f.get(key, 0)) for f in fns)


def not_probed_reason(report, path, exact):
    key = (lambda n: n) if exact else legacy_form
    why = [np.get("reason", "?") for np in report.get("not_probed", [])
           if key(np.get("name", "")) == path]
    return ("; not probed: " + "; ".join(sorted(set(why)))) if why else ""


def normalize_libtest(out):
    """libtest's stdout, comparable between runs: lines sorted (parallel
    tests finish in any order), the run time blanked."""
    lines = re.sub(rb"finished in [0-9.]+s", b"finished in <t>s", out).splitlines()
    return b"\n".join(sorted(lines))


# ---- code shape (objdump_expect) ----------------------------------------

INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*?)\s*$")
PREFIXES = {"notrack", "bnd", "rep", "repz", "repe", "repnz", "repne", "lock",
            "ds", "cs", "data16", "addr32"}


def text_symbols(exe):
    """{legacy-form name: [(start, size)]} and {start: [names]} from nm."""
    p = subprocess.run(["nm", "-S", "-C", "--defined-only", exe],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise SetupError("nm failed: " + _text(p.stderr))
    by_name, by_addr = {}, {}
    for line in _text(p.stdout).splitlines():
        m = re.match(r"^([0-9a-f]+) ([0-9a-f]+) ([tTwW]) (.*)$", line)
        if not m:
            continue
        start, size, name = int(m.group(1), 16), int(m.group(2), 16), m.group(4)
        by_name.setdefault(legacy_form(name), []).append((start, size))
        by_addr.setdefault(start, []).append(legacy_form(name))
    return by_name, by_addr


def got_slots(exe):
    """{slot address: target name or address} from the dynamic relocations:
    R_X86_64_RELATIVE slots hold an address, GLOB_DAT/JUMP_SLOT a symbol."""
    p = subprocess.run(["objdump", "-R", "-C", exe],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    slots = {}
    for line in _text(p.stdout).splitlines():
        m = re.match(r"^([0-9a-f]+)\s+(R_\S+)\s+(.*)$", line)
        if not m:
            continue
        slot, value = int(m.group(1), 16), m.group(3).strip()
        a = re.match(r"^\*ABS\*\+0x([0-9a-f]+)$", value)
        slots[slot] = int(a.group(1), 16) if a else re.sub(r"@.*$", "", value)
    return slots


def disassemble(exe, start, size):
    """[(address, mnemonic, operands)] of [start, start + size)."""
    p = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C",
                        "--start-address=0x%x" % start,
                        "--stop-address=0x%x" % (start + size), exe],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise SetupError("objdump failed: " + _text(p.stderr))
    insns = []
    for line in _text(p.stdout).splitlines():
        m = INSN.match(line)
        if not m:
            continue
        words = m.group(2).split(None, 1)
        while len(words) > 1 and words[0] in PREFIXES:
            words = words[1].split(None, 1)
        insns.append((int(m.group(1), 16), words[0], words[1] if len(words) > 1 else ""))
    return insns


def jump_target(operands, slots, by_addr):
    """(address or None, name) of a jump's target; None when unknown."""
    m = re.match(r"^([0-9a-f]+) <(.*)>$", operands)
    if m:
        addr = int(m.group(1), 16)
        return addr, (by_addr.get(addr) or [re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))])[0]
    m = re.match(r"^\*0x[0-9a-f]+\(%rip\)\s+# ([0-9a-f]+)", operands)
    if m and int(m.group(1), 16) in slots:
        t = slots[int(m.group(1), 16)]
        if isinstance(t, int):
            return t, (by_addr.get(t) or ["0x%x" % t])[0]
        return None, legacy_form(t)  # a symbol of another module
    return None, None


def shape_facts(insns, start, size, slots, by_addr):
    """What the code does: [("jmp"|"jcc", target name)] for the jumps that
    leave the function, and its number of ret instructions."""
    leaves, rets = [], 0
    for _, mn, ops in insns:
        if mn in ("ret", "retq", "retn"):
            rets += 1
            continue
        if not mn.startswith("j"):
            continue
        kind = "jmp" if mn in ("jmp", "jmpq") else "jcc"
        addr, name = jump_target(ops, slots, by_addr)
        if name is None:
            continue  # through a register: a jump table, target unknown
        if addr is None or not start <= addr < start + size:
            leaves.append((kind, name))
    return leaves, rets


def fact_holds(fact, leaves, rets):
    if fact == "ret":
        return rets > 0
    if fact == "no ret":
        return rets == 0
    kind, _, glob = fact.partition(":")
    return any(k == kind and (not glob or fnmatch.fnmatchcase(n, glob))
               for k, n in leaves)


def check_objdump(case, b, table):
    name, lab = case["name"], b.label
    try:
        by_name, by_addr = text_symbols(b.exe)
        slots = got_slots(b.exe)
    except (SetupError, OSError) as e:
        table.row(name, lab, "objdump: read symbols", "NG", detail=str(e))
        return
    for fn, facts in case["objdump_expect"].items():
        syms = by_name.get(fn, [])
        if not syms:
            table.row(name, lab, "objdump %s" % fn, "NG", "a symbol", "no such function")
            continue
        try:
            shapes = [shape_facts(disassemble(b.exe, start, size), start, size,
                                  slots, by_addr) for start, size in syms]
        except (SetupError, OSError) as e:
            table.row(name, lab, "objdump %s" % fn, "NG", detail=str(e))
            continue
        seen = "; ".join(", ".join(["%s %s" % l for l in leaves] + ["%d ret" % rets])
                         for leaves, rets in shapes)
        for fact in facts:
            ok = all(fact_holds(fact, leaves, rets) for leaves, rets in shapes)
            table.row(name, lab, "objdump %s: %s" % (fn, fact), "OK" if ok else "NG",
                      fact, seen)


# "  0x14500   9   1   0   2/2    fnptr::bump  (/src/fnptr.rs:49)", or
# "  inlined   -   -   -          fnptr::add  (/src/fnptr.rs:40)"
LIST_FUNC = re.compile(r"^  (?:0x[0-9a-f]+|inlined)\s+\S+\s+\S+\s+\S+\s+(?:\d+/\d+\s+)?"
                       r"(.+?)(?:  \(.*\))?$")


def listed_sites(text):
    """{function: [its lines of rtrace -l -v, stripped]}."""
    out, func = {}, None
    for line in text.splitlines():
        m = LIST_FUNC.match(line)
        if m:
            func = m.group(1)
            out.setdefault(func, [])
        elif func and line.startswith("      "):
            out[func].append(line.strip())
    return out


def check_sites(opts, case, b, table):
    """sites_expect: how rtrace -l -v says the sites are patched."""
    name, lab = case["name"], b.label
    want = case["sites_expect"].get(b.opt)
    if not want:
        return
    cmd = [opts.rtrace, "-l", "-v"] + selection_options(case) + ["--", b.exe]
    r = run(cmd, opts.build, case["timeout"])
    if r.rc != 0:
        table.row(name, lab, "rtrace -l -v", "NG", "exit 0", r.describe(),
                  detail=_text(r.err))
        return
    sites = listed_sites(_text(r.out))
    for fn, facts in want.items():
        lines = sites.get(fn, [])
        for fact in facts:
            ok = any(re.search(fact, l) for l in lines)
            table.row(name, lab, "sites %s: %s" % (fn, fact), "OK" if ok else "NG",
                      fact, "; ".join(lines) or "not listed")


# "  0x14500   9   1   0   2/2    fnptr::bump  (/src/fnptr.rs:49)"
LISTED = re.compile(r"^\s+0x[0-9a-f]+\s+\d+\s+\S+\s+\S+\s+\S+\s+(.+?)"
                    r"  \((.+):(\d+)\)$")


def declares(line, name):
    """Whether source @line declares function @name (its last segment,
    generics and a trait impl's prefix left out), or a closure."""
    last = re.sub(r"<.*>$", "", name).split("::")[-1]
    if last.startswith("{{closure}}") or last.startswith("{closure#"):
        # a closure, or the one libtest wraps a #[test] function's body in
        return "|" in line or re.search(r"\bfn\s", line) is not None
    # a macro's functions are declared at its "fn $name"
    return re.search(r"\bfn\s+(%s|\$\w+)\b" % re.escape(last),
                     line) is not None


def check_decl_lines(opts, case, b, table):
    """-l places each function of the fixture at the line that declares
    it, whatever code was inlined at its first address."""
    r = run([opts.rtrace, "-l"] + selection_options(case)[:2 * len(
        case["patterns"])] + ["--", b.exe], None, 60)
    src = os.path.join(opts.fixtures, case["fixture"] + ".rs")
    lines = open(src, encoding="utf-8").read().split("\n")
    bad, seen = [], 0
    for m in map(LISTED.match, _text(r.out).splitlines()):
        if m and (case["fixture"] + "::" not in m.group(1) or
                  re.search(r"\{shim:| as core::ops::function::Fn",
                            m.group(1)) or
                  (case["libtest"] and m.group(1).endswith("::main"))):
            continue    # another crate's, std's Fn* glue for a closure, or
            # the main rustc --test writes, which has no source line
        if not m or os.path.basename(m.group(2)) == os.path.basename(src) \
                and declares(lines[int(m.group(3)) - 1], m.group(1)):
            seen += bool(m)
            continue
        bad.append("%s at %s:%s" % m.groups())
    table.row(case["name"], b.label, "-l: declaration lines",
              "OK" if seen and not bad else "NG", "each in %s" %
              os.path.basename(src), "%d right, %d not" % (seen, len(bad)),
              "\n".join(bad[:5]))


# ---- a normal case ------------------------------------------------------

def check_build(opts, case, b, table):
    name, lab = case["name"], b.label
    if b.error:
        table.row(name, lab, "build", "NG", detail=b.error)
        return
    table.row(name, lab, "build", "OK", got=os.path.basename(b.exe))
    if case["objdump_expect"] and b.opt != "0":
        check_objdump(case, b, table)
    check_decl_lines(opts, case, b, table)
    if case["sites_expect"] and opts.engine != "trap":
        check_sites(opts, case, b, table)
    for i in range(case["repeat"]):
        rlab = lab if case["repeat"] == 1 else "%s#%d" % (lab, i + 1)
        tmp = tempfile.mkdtemp(prefix="rtrace-e2e-%s-%s." % (name, lab))
        try:
            check_runs(opts, case, b, rlab, tmp, table)
        finally:
            if opts.keep:
                print("    (kept %s)" % tmp)
            else:
                shutil.rmtree(tmp, ignore_errors=True)


class Ctx:
    """What the checks of one run share: the case, the build, the row label."""

    def __init__(self, opts, case, b, lab, tmp, table):
        self.opts, self.case, self.b, self.lab = opts, case, b, lab
        self.tmp, self.table = tmp, table
        self.last_out = b""  # the last traced run's stdout

    def row(self, check, result, expected="", got="", detail=None):
        self.table.row(self.case["name"], self.lab, check, result, expected, got, detail)


def check_runs(opts, case, b, lab, tmp, table):
    cx = Ctx(opts, case, b, lab, tmp, table)
    native = run([b.exe] + list(case["args"]), tmp, case["timeout"], case["interrupt"])
    exp = native_expectations(cx, native)
    if exp is None:
        return
    want_exit = case["expect_exit"] if case["expect_exit"] is not None else native.status()
    report = check_recorded(cx, native, exp, want_exit, [], "")
    if report is not None and (exp.time or exp.native) and not record_mode(case):
        check_times(cx, want_exit, (report, cx.last_out))
    if case["test_threads_compare"]:
        other = check_recorded(cx, native, exp, want_exit, ["--test-threads=1"],
                               "--test-threads=1: ")
        compare_reports(cx, report, other, "--test-threads=1: same calls as the default run")


def native_expectations(cx, native):
    """Checks the native run; returns its Expect, or None (row NG)."""
    case = cx.case
    try:
        exp = apply_case_counts(case, parse_expectations(native.out))
    except ValueError as e:
        exp, bad = None, str(e)
    else:
        needed = not (case["interrupt"] or case["counts"] is not None)
        bad = "no COUNT lines on stdout" if needed and exp.empty() else None
    if native.timed_out or native.failed or bad:
        cx.row("native run", "NG", "COUNT lines",
               native.describe() if native.timed_out or native.failed else bad,
               detail=run_detail(native))
        return None
    cx.row("native run", "OK", got="%s, %d expectations, %.2f s" % (
        native.describe(), len(exp.count) + len(exp.counti) + len(exp.time) + len(exp.native)
        + len(exp.unwound) + len(exp.tcount) + len(exp.pcount), native.secs))
    if case["expect_exit"] is not None:
        ok = native.status() == case["expect_exit"]
        cx.row("native: exit status (by construction)", "OK" if ok else "NG",
               case["expect_exit"], "%d (%s)" % (native.status(), native.describe()),
               detail=run_detail(native))
    if case["interrupt"] and not native.signalled:
        cx.row("native: interrupted", "NG", "still running after %.1f s"
               % case["interrupt"]["after"], "ended before", detail=run_detail(native))
    return exp


def check_recorded(cx, native, exp, want_exit, extra_args, tag):
    """One run under rtrace and every check of its log; returns the report."""
    case = cx.case
    log = os.path.join(cx.tmp, "run%s.rtrace" % ("-" + str(len(extra_args)) if extra_args else ""))
    rec = run(record_cmd(cx.opts, case, cx.b.exe, log, extra_args), cx.tmp,
              case["timeout"], case["interrupt"])
    ok = not (rec.timed_out or rec.failed) and rec.status() == want_exit
    cx.row(tag + "record: exit status", "OK" if ok else "NG",
           want_exit, "%d (%s)" % (rec.status(), rec.describe()), detail=run_detail(rec))
    if case["interrupt"] and not rec.signalled:
        cx.row(tag + "record: interrupted", "NG", "still running after %.1f s"
               % case["interrupt"]["after"], "ended before", detail=run_detail(rec))
    check_outputs(cx, native, rec, tag)
    cx.last_out = rec.out
    if case["inline_share"] and cx.opts.engine != "trap":
        check_inline_share(cx, rec, tag)
    if case["self_counted"]:
        exp = traced_expectations(cx, rec, tag)
    report = get_report(cx, log, [], tag)
    if report is None:
        return None
    check_ending(cx, report, want_exit, tag)
    if case["breakpoint_sites"] is not None and cx.opts.engine != "trap":
        got = sorted(b.get("name") for b in report.get("breakpoint_sites", []))
        want = sorted(case["breakpoint_sites"])
        cx.row(tag + "inline: functions with breakpoints", "OK" if got == want else "NG",
               want, got)
    mode = record_mode(case)
    if not mode:
        check_stop_cost(cx, report, tag)
    if mode:
        cx.row(tag + "report: mode", "OK" if report.get("mode") == mode else "NG",
               mode, report.get("mode"))
    if mode == "coverage":
        check_coverage(cx, report, exp, tag)
    else:
        check_counts(cx, report, exp, tag)
    if not mode:
        check_timed(cx, report, exp, tag)
        check_blocked(cx, report, exp, tag)
    if exp.tcount and mode != "coverage":
        check_split(cx, log, "thread", "tid", exp.tcount, tag)
    if exp.pcount:
        per = collections.OrderedDict()
        for _, path, n in exp.pcount:
            per.setdefault(path, []).append(n)
        check_split(cx, log, "process", "pid", per, tag)
    if case["inlined"] and cx.b.opt in case["inlined"]:
        check_inlined(cx, report, case["inlined"][cx.b.opt], tag)
    if case["by_test"] is not None:
        check_by_test(cx, log, exp, tag)
    if exp.stack:
        check_stacks(cx, log, exp, tag)
    if exp.mem or exp.peak or exp.allocator:
        check_memory(cx, log, exp, tag)
    return report


def check_stop_cost(cx, report, tag):
    """Whether the log holds a measured stop cost, as the engine and the
    case say it must."""
    if cx.opts.engine == "trap":
        want = True
    elif cx.case["stop_cost"] is not None:
        want = cx.case["stop_cost"]
    else:
        return
    got = report.get("stop_cost_ns", 0) > 0
    cx.row(tag + "log: stop cost measured", "OK" if got == want else "NG",
           want, "%s (%s ns)" % (got, report.get("stop_cost_ns")))


INLINE_STATS = re.compile(rb"jump probes: .* events recorded without a stop "
                          rb"\(([0-9.]+) %\)")


def check_inline_share(cx, rec, tag):
    """The share of events the inline engine recorded without a stop."""
    want = cx.case["inline_share"].get(cx.b.opt)
    if want is None:
        return
    m = INLINE_STATS.search(rec.err)
    got = float(m.group(1)) / 100 if m else None
    cx.row(tag + "inline: events without a stop", "OK" if got is not None and got >= want
           else "NG", ">= %.1f %%" % (100 * want),
           "%.2f %%" % (100 * got) if got is not None else "no --stats line",
           detail=run_detail(rec))


def traced_expectations(cx, rec, tag):
    """self_counted: the lines that the program printed under rtrace."""
    try:
        exp = apply_case_counts(cx.case, parse_expectations(rec.out))
        bad = "no COUNT lines on stdout" if exp.empty() else None
    except ValueError as e:
        exp, bad = Expect(), str(e)
    cx.row(tag + "record: the program's own counts", "NG" if bad else "OK",
           "COUNT lines", bad or "%d lines" % len(exp.count), detail=_text(rec.out[-2000:]))
    return exp


def check_outputs(cx, native, rec, tag):
    """The program's stdout and stderr are the same with and without rtrace."""
    a, b = native.out, rec.out
    if cx.case["libtest"]:
        a, b = normalize_libtest(a), normalize_libtest(b)
    if cx.case["self_counted"]:
        a, b = re.sub(rb"[0-9]+", b"<n>", a), re.sub(rb"[0-9]+", b"<n>", b)
    cx.row(tag + "record: program stdout unchanged", "OK" if a == b else "NG",
           "%d bytes" % len(native.out), "%d bytes" % len(rec.out),
           detail=first_difference(a, b))
    if cx.case["interrupt"]:
        # live mode: the report shares stderr with the program
        ok = TABLE_HEADER.search(rec.err) is not None
        cx.row(tag + "live: report table on stderr", "OK" if ok else "NG",
               '"calls ... function"', "found" if ok else "not found",
               detail=run_detail(rec))
        return
    err = b"".join(l for l in rec.err.splitlines(keepends=True)
                   if not l.startswith(RTRACE_PREFIX))
    same = err == native.err
    cx.row(tag + "record: program stderr unchanged", "OK" if same else "NG",
           "%d bytes" % len(native.err), "%d bytes" % len(err),
           detail=first_difference(native.err, err) + "\n" + run_detail(rec))


def get_report(cx, log, options, tag):
    """`rtrace report [options] --format json LOG`, parsed; None (row NG)."""
    rep = run([cx.opts.rtrace, "report"] + options + ["--format", "json", log],
              cx.tmp, cx.case["timeout"])
    check = tag + "report%s: json" % "".join(" " + o for o in options)
    if rep.rc != 0:
        cx.row(check, "NG", "exit 0", rep.describe(), detail=run_detail(rep))
        return None
    try:
        report = json.loads(_text(rep.out))
        if not isinstance(report, dict) or not isinstance(report.get("functions"), list):
            raise ValueError("no \"functions\" array")
    except ValueError as e:
        cx.row(check, "NG", "valid JSON", str(e), detail=_text(rep.out[:2000]))
        return None
    cx.row(check, "OK", got="%d rows, %s events" % (
        len(report["functions"]), report.get("events", "?")))
    return report


def check_ending(cx, report, want_exit, tag):
    got = (report.get("end"), report.get("exit_status"))
    ok = got[0] in cx.case["expect_end"] and got[1] == want_exit
    cx.row(tag + "report: end, exit_status", "OK" if ok else "NG",
           "%s %d" % ("|".join(cx.case["expect_end"]), want_exit), "%s %s" % got)
    if cx.case["interrupt"]:
        n = int(report.get("calls", 0))
        cx.row(tag + "report: calls recorded before the signal", "OK" if n > 0 else "NG",
               "> 0", n)


def record_mode(case):
    """The report "mode" that record_options ask for, or None (times)."""
    opts = case["record_options"]
    return "coverage" if "--coverage" in opts else "count" if "--count" in opts else None


def check_coverage(cx, report, exp, tag):
    """--coverage: each function's first call only, and the selected
    functions never called in "not_called"."""
    rows = report.get("functions", [])
    bad = ["%s: %s" % (f.get("name"), f.get("calls")) for f in rows
           if int(f.get("calls", 0)) != 1]
    cx.row(tag + "coverage: every row has calls == 1", "NG" if bad else "OK",
           "%d rows" % len(rows), "; ".join(bad) or "all 1")
    for path, n in exp.count.items():
        got = [int(f.get("calls", 0)) for f in select(report, path, False)]
        ok = bool(got) and all(c == 1 for c in got) if n else not any(got)
        cx.row(tag + "coverage: %s" % path, "OK" if ok else "NG",
               "called (1 per row)" if n else "not called", got or "no row")
    want = sorted(p for p, n in exp.count.items() if n == 0)
    got = sorted(legacy_form(x) for x in report.get("not_called", []))
    cx.row(tag + "coverage: not_called", "OK" if got == want else "NG", want, got)


def check_counts(cx, report, exp, tag):
    for path, n in exp.count.items():
        check_count(cx, report, path, n, False, tag)
    for name, n in exp.counti:
        if cx.b.v0:
            check_count(cx, report, name, n, True, tag)
        else:
            cx.row(tag + "COUNTI " + name, "SKIP", n,
                   "legacy mangling: instances share a name")
    for path, n in exp.unwound.items():
        got = calls_of(select(report, path, False), "unwound")
        cx.row(tag + "UNWOUND " + path, "OK" if got == n else "NG", n, got)


def check_inlined(cx, report, paths, tag):
    """Every call of each path was an inlined one."""
    for path in paths:
        fns = select(report, path, False)
        calls, inl = calls_of(fns), calls_of(fns, "inlined_calls")
        ok = calls > 0 and inl == calls
        cx.row(tag + "inlined " + path, "OK" if ok else "NG",
               "%d of %d" % (calls, calls), "%d of %d" % (inl, calls))


def check_timed(cx, report, exp, tag):
    """TIMED lines: how many calls have a time, and a floor under each."""
    floor = 1 - time_tolerance(cx)
    for path, n, least in exp.timed:
        fns = select(report, path, False)
        got = calls_of(fns, "timed_calls")
        cx.row(tag + "TIMED %s: calls with a time" % path,
               "OK" if got == n else "NG", n, got)
        mins = [f["min_ns"] for f in fns if f.get("min_ns") is not None]
        low = min(mins) if mins else None
        ok = low is not None and low >= least * floor
        exp, busy = ">= %d ns" % int(least * floor), machine_busy()
        res = "OK" if ok else "NG"
        # a stop after a sleep costs more, and a loaded machine makes
        # the cost taken out of a call's time overshoot: as TIME
        if res == "NG" and low is not None and busy:
            res, exp = "SKIP", exp + " (" + busy + ")"
        cx.row(tag + "TIMED %s: fastest call" % path, res, exp, low)


def time_tolerance(cx):
    """The case's time_tolerance, or under --engine trap its own."""
    if cx.opts.engine == "trap" and cx.case["trap_time_tolerance"]:
        return cx.case["trap_time_tolerance"]
    return cx.case["time_tolerance"]


def floor_row(cx, check, ok, want, got):
    """A row for a time floor: SKIP rather than NG on a busy machine,
    where the stops' cost taken out overshoots (as TIME)."""
    busy = machine_busy()
    res = "OK" if ok else "NG"
    if res == "NG" and busy:
        res, want = "SKIP", "%s (%s)" % (want, busy)
    cx.row(check, res, want, got)


def check_blocked(cx, report, exp, tag):
    """BLOCKED and ONCPU lines: blocked time apart from self time."""
    floor = 1 - time_tolerance(cx)
    for path, least, most in exp.blocked:
        fns = select(report, path, False)
        blocked = sum(f.get("blocked_ns") or 0 for f in fns)
        own = sum(f.get("self_ns") or 0 for f in fns)
        floor_row(cx, tag + "BLOCKED %s: blocked" % path,
                  blocked >= least * floor, ">= %d ns" % int(least * floor),
                  blocked)
        cx.row(tag + "BLOCKED %s: self" % path, "OK" if own <= most else "NG",
               "<= %d ns" % most, own)
    for path, least in exp.oncpu:
        fns = select(report, path, False)
        blocked = sum(f.get("blocked_ns") or 0 for f in fns)
        own = sum(f.get("self_ns") or 0 for f in fns)
        floor_row(cx, tag + "ONCPU %s: self" % path, own >= least * floor,
                  ">= %d ns" % int(least * floor), own)
        cx.row(tag + "ONCPU %s: blocked" % path,
               "OK" if blocked * 100 <= own else "NG", "<= 1 % of self",
               blocked)


def check_count(cx, report, path, want, exact, tag):
    fns = select(report, path, exact)
    got = calls_of(fns)
    res = "OK" if got == want else "NG"
    note = ""
    if res == "NG":
        note = " (%d entries)" % len(fns) + not_probed_reason(report, path, exact)
    cx.row(tag + "%s %s" % ("COUNTI" if exact else "COUNT", path),
           res, want, "%d%s" % (got, note))


def per_call(report, path, key):
    """key/calls over the report's functions selected as for COUNT."""
    fns = select(report, path, False)
    calls = calls_of(fns)
    # a function none of whose calls has a time has no times (null)
    return sum(int(f.get(key) or 0) for f in fns) / calls if calls else None


def machine_busy():
    """Why times cannot be checked now, or None.  With more runnable
    processes than 1.5 per CPU, the tracee and the tracer wait for a CPU
    for whole time slices at every stop, which no compensation can know
    of; a timing check then says it was skipped, and why, rather than
    fail.  RTRACE_STRICT_TIMES=1 checks them anyway."""
    if os.environ.get("RTRACE_STRICT_TIMES") == "1":
        return None
    # make test-sanitize: rtrace under ASan spends several times longer
    # at each stop than the cost it measured, unevenly
    if os.environ.get("ASAN_OPTIONS"):
        return "rtrace built with sanitizers: its costs are not a release's"
    load, cpus = os.getloadavg()[0], os.cpu_count() or 1
    if load > 1.5 * cpus:
        return "machine busy: load %.1f on %d CPUs" % (load, cpus)
    return None


def time_want(exp, kind, path):
    """(total, self) the fixture printed for path in one run, or None."""
    if kind == "TIME":
        return next(((t, n) for p, t, n in exp.time if p == path), None)
    return next(((n, n) for p, n in exp.native if p == path), None)


def fastest_call(report, path):
    """The smallest min_ns over the report's functions selected as for
    COUNT, or None when none was called."""
    mins = [int(f["min_ns"]) for f in select(report, path, False)
            if f.get("min_ns") is not None]
    return min(mins) if mins else None


def time_pairs(runs, path, kind, i):
    """(the fixture's figure, rtrace's) for each run that has both.  TIME:
    per-call total (i = 0) or self (i = 1); NATIVE: the fastest call."""
    pairs = []
    for report, exp in runs:
        want = time_want(exp, kind, path)
        if kind == "NATIVE":
            got = fastest_call(report, path)
        else:
            got = per_call(report, path, ("total_ns", "self_ns")[i])
        if want is not None and got is not None:
            pairs.append((want[i], got))
    return pairs


def time_whats(kind):
    return (("total", 0), ("self", 1)) if kind == "TIME" else (("fastest", 0),)


def time_within(cx, pairs):
    """Whether the median difference of @pairs is within the case's
    tolerance (or its floor)."""
    tol, floor = time_tolerance(cx), cx.case["time_floor_ns"]
    want = statistics.median(w for w, _ in pairs)
    diff = statistics.median(g - w for w, g in pairs)
    return abs(diff) <= max(tol * abs(want), floor)


def times_within(cx, runs, exp):
    """Whether every TIME and NATIVE figure of @runs is within bounds."""
    return all(time_within(cx, pairs)
               for kind, paths in (("TIME", exp.time), ("NATIVE", exp.native))
               for path in (p[0] for p in paths)
               for _, i in time_whats(kind)
               for pairs in [time_pairs(runs, path, kind, i)] if pairs)


def check_time(cx, runs, path, tag, kind="TIME"):
    """TIME and NATIVE lines: each traced run's figure against what the
    fixture printed in that run; the median difference over the runs (the
    machines are shared and noisy) within time_tolerance of the figure, or
    within time_floor_ns when that is more."""
    tol, floor = time_tolerance(cx), cx.case["time_floor_ns"]
    busy = machine_busy()
    for what, i in time_whats(kind):
        check = tag + "%s %s %s/call" % (kind, path, what)
        pairs = time_pairs(runs, path, kind, i)
        if not pairs:
            cx.row(check, "NG", "the fixture's figure", "no calls"
                   + not_probed_reason(runs[0][0], path, False))
            continue
        want = statistics.median(w for w, _ in pairs)
        diff = statistics.median(g - w for w, g in pairs)
        errs = [(g - w) / w if w else float("inf") for w, g in pairs]
        exp = "%d ±%g%%" % (want, tol * 100) + (" or %d ns" % floor if floor else "")
        res = "OK" if time_within(cx, pairs) else "NG"
        if res == "NG" and busy:
            res, exp = "SKIP", exp + " (" + busy + ")"
        cx.row(check, res, exp, "%+.0f ns (%+.1f%%, median of %d runs: %+.1f%%..%+.1f%%)" % (
            diff, 100 * diff / want if want else float("inf"), len(pairs),
            100 * min(errs), 100 * max(errs)))


def runs_within(cx, runs):
    """Whether the runs so far, (report, stdout) each, meet every TIME
    and NATIVE bound; False when their figures cannot be read."""
    try:
        parsed = [(r, parse_expectations(out)) for r, out in runs]
    except ValueError:
        return False
    return times_within(cx, parsed, parsed[0][1])


def check_times(cx, want_exit, first):
    """More traced runs for the TIME lines; each must end as the first.
    first: the first traced run's (report, stdout).  When a median is out
    of bounds, as many runs again: a neighbour on a shared machine can
    slow two runs of three, seldom four of seven."""
    runs = [first]
    for i in range(1, 2 * cx.case["time_runs"] + 1):
        if i == cx.case["time_runs"] and runs_within(cx, runs):
            break
        log = os.path.join(cx.tmp, "time%d.rtrace" % i)
        rec = run(record_cmd(cx.opts, cx.case, cx.b.exe, log), cx.tmp, cx.case["timeout"])
        if rec.timed_out or rec.failed or rec.status() != want_exit:
            cx.row("TIME: traced run %d" % (i + 1), "NG", want_exit, rec.describe(),
                   detail=run_detail(rec))
            continue
        r = get_report(cx, log, [], "TIME: run %d: " % (i + 1))
        if r is not None:
            runs.append((r, rec.out))
    try:
        runs = [(r, parse_expectations(out)) for r, out in runs]
    except ValueError as e:
        cx.row("TIME: the program's figures", "NG", "TIME lines", str(e))
        return
    exp = runs[0][1]
    for path, _, _ in exp.time:
        check_time(cx, runs, path, "")
    for path, _ in exp.native:
        check_time(cx, runs, path, "", "NATIVE")


def per_key(report, path, key):
    """{key value: calls of path} over a split report's rows."""
    out = collections.Counter()
    for f in select(report, path, False):
        out[f.get(key)] += int(f.get("calls", 0))
    return out


def check_split(cx, log, by, key, want, tag):
    """TCOUNT/PCOUNT: per-thread or per-process calls as multisets."""
    report = get_report(cx, log, ["--by", by], tag)
    kind = "TCOUNT" if by == "thread" else "PCOUNT"
    for path, ns in want.items():
        if report is None:
            cx.row(tag + "%s %s" % (kind, path), "NG", got="no report")
            continue
        missing = [f for f in report["functions"] if key not in f]
        split = per_key(report, path, key)
        got = sorted(n for n in split.values() if n)
        exp = sorted(n for n in ns if n)
        ok = got == exp and not missing
        note = " (rows without \"%s\")" % key if missing else ""
        cx.row(tag + "%s %s (per %s)" % (kind, path, by), "OK" if ok else "NG",
               exp, "%s%s" % (got, note))


def report_json(cx, log, view, key, tag):
    """The key member of `rtrace report VIEW --format json LOG`, or None
    (with an NG row) when the report is not JSON that has it."""
    rep = run([cx.opts.rtrace, "report", view, "--format", "json", log],
              cx.tmp, cx.case["timeout"])
    try:
        return json.loads(_text(rep.out))[key]
    except (ValueError, KeyError) as e:
        cx.row(tag + "report %s: json" % view, "NG", "valid JSON", str(e),
               detail=run_detail(rep))
        return None


def check_memory(cx, log, exp, tag):
    """MEM path allocs bytes frees freed live: the memory report's row for
    the function, exactly.  PEAK path bytes: the peak happened in path,
    which then held exactly bytes.  ALLOCATOR word: the global allocator
    the report names contains word (recorded with --mem)."""
    mem = report_json(cx, log, "--mem", "memory", tag)
    if mem is None:
        return
    rows = {f["name"]: f for f in mem["functions"]}
    keys = ("allocs", "bytes", "frees", "bytes_freed", "live_bytes")
    for path, want in exp.mem:
        r = rows.get(path)
        got = [r[k] for k in keys] if r else None
        cx.row(tag + "MEM " + path, "OK" if got == want else "NG", want, got)
    for path, want in exp.peak:
        r = rows.get(path)
        got = (mem.get("peak_function"), r["bytes_at_peak"] if r else None)
        cx.row(tag + "PEAK " + path, "OK" if got == (path, want) else "NG",
               (path, want), got)
    for word in exp.allocator:
        got = mem.get("global_allocator", "")
        cx.row(tag + "ALLOCATOR " + word, "OK" if word in got else "NG", word, got)


def check_stacks(cx, log, exp, tag):
    """STACK a|b|c n: the calls of a whose captured stack begins a, b, c
    (innermost first, recorded with --stack) number n."""
    stacks = report_json(cx, log, "--stacks", "stacks", tag)
    if stacks is None:
        return
    for paths, want in exp.stack:
        got = sum(s["calls"] for s in stacks
                  if s["function"] == paths[0]
                  and [f["name"] for f in s["frames"][:len(paths)]] == paths)
        cx.row(tag + "STACK " + " <- ".join(paths), "OK" if got == want else "NG",
               want, got)


def check_by_test(cx, log, exp, tag):
    """by_test: per-test calls, their sum, and no calls outside the tests."""
    want = cx.case["by_test"]
    report = get_report(cx, log, ["--by", "test"], tag)
    paths = []
    for t in want.values():
        paths += [p for p in t if p not in paths]
    for path in paths:
        if report is None:
            cx.row(tag + "by test: " + path, "NG", got="no report")
            continue
        split = per_key(report, path, "test")
        bad = ["%s: want %d, got %d" % (t, c.get(path, 0), split.get(t, 0))
               for t, c in sorted(want.items()) if split.get(t, 0) != c.get(path, 0)]
        ntests = sum(1 for c in want.values() if c.get(path, 0))
        cx.row(tag + "by test: %s, per test" % path, "NG" if bad else "OK",
               "%d tests as constructed" % ntests,
               "%d differ" % len(bad) if bad else "all equal", detail="\n".join(bad))
        stray = {t: n for t, n in split.items() if t not in want and n}
        cx.row(tag + "by test: %s, no other test" % path, "NG" if stray else "OK",
               "none", ", ".join("%s: %d" % kv for kv in sorted(stray.items(), key=str))
               or "none")
        total = sum(split.values())
        want_total = exp.count.get(path, sum(c.get(path, 0) for c in want.values()))
        cx.row(tag + "by test: %s, sum of rows" % path,
               "OK" if total == want_total else "NG", want_total, total)


def compare_reports(cx, a, b, check):
    """Every function's calls are the same in two reports of one program."""
    if a is None or b is None:
        cx.row(check, "NG", got="no report")
        return
    ca = collections.Counter()
    cb = collections.Counter()
    for f in a["functions"]:
        ca[f.get("name")] += int(f.get("calls", 0))
    for f in b["functions"]:
        cb[f.get("name")] += int(f.get("calls", 0))
    diff = ["%s: %d vs %d" % (n, ca[n], cb[n]) for n in sorted(set(ca) | set(cb))
            if ca[n] != cb[n]]
    cx.row(check, "NG" if diff else "OK", "%d functions" % len(ca),
           "%d differ" % len(diff) if diff else "all equal", detail="\n".join(diff))


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else b"<end>"
        y = lb[i] if i < len(lb) else b"<end>"
        if x != y:
            return "first difference, line %d:\n  native: %r\n  traced: %r" % (i + 1, x, y)
    return "" if a == b else "same lines, different line ends"


def run_normal(opts, case, table):
    builds = [Build(o, v0, case["libtest"])
              for v0 in ([False, True] if case["v0"] else [False])
              for o in case["opt_levels"]]
    build_all(opts, case["fixture"], builds)
    for b in builds:
        check_build(opts, case, b, table)


# ---- a bad-input case ---------------------------------------------------

PLACEHOLDER = re.compile(r"\{(\w+)\}")


class Prep:
    """Lazily made inputs for the placeholders of a bad-input case."""

    def __init__(self, opts, case, b, tmp):
        self.opts, self.case, self.b, self.tmp = opts, case, b, tmp
        self.made = {"tmp": tmp}

    def get(self, what):
        if what not in self.made:
            self.made[what] = getattr(self, "make_" + what)()
        return self.made[what]

    def expand(self, s):
        """Replaces known placeholders; leaves other braces alone, so a
        glob such as `x::main::{{closure}}` passes through unchanged."""
        def one(m):
            known = m.group(1) == "tmp" or hasattr(self, "make_" + m.group(1))
            return self.get(m.group(1)) if known else m.group(0)
        return PLACEHOLDER.sub(one, s)

    def make_fixture(self):
        if not self.case["fixture"]:
            raise SetupError("{fixture} used, but the case names no fixture")
        build_fixture(self.opts, self.case["fixture"], self.b)
        if self.b.error:
            raise SetupError(self.b.error)
        return self.b.exe

    def make_prog(self):
        path = os.path.join(self.tmp, "prog")
        shutil.copy2(self.get("fixture"), path)
        return path

    def make_stripped(self):
        strip = shutil.which("strip")
        if not strip:
            raise SkipCase("no `strip` program")
        path = os.path.join(self.tmp, self.case["fixture"] + "-stripped")
        shutil.copy2(self.get("fixture"), path)
        p = subprocess.run([strip, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            raise SetupError("strip failed: " + _text(p.stdout))
        return path

    def make_text_exec(self):
        path = os.path.join(self.tmp, "not-a-program.txt")
        with open(path, "w") as f:
            f.write("This is a text file, not a program.\n")
        os.chmod(path, 0o755)
        return path

    def make_missing(self):
        return os.path.join(self.tmp, "no-such-program")

    def make_not_log(self):
        path = os.path.join(self.tmp, "not-a-log.txt")
        with open(path, "w") as f:
            f.write("This is a text file, not an rtrace log.\n" * 8)
        return path

    def make_log(self):
        path = os.path.join(self.tmp, "real.rtrace")
        r = run(record_cmd(self.opts, self.case, self.get("fixture"), path),
                self.tmp, self.case["timeout"])
        if r.timed_out or not os.path.exists(path) or os.path.getsize(path) == 0:
            raise SetupError("could not record {log}\n" + run_detail(r))
        return path

    def make_cut_log(self):
        n = self.case["cut_bytes"]
        with open(self.get("log"), "rb") as f:
            data = f.read()
        if len(data) <= n:
            raise SetupError("{log} has only %d bytes, not more than %d" % (len(data), n))
        path = os.path.join(self.tmp, "cut.rtrace")
        with open(path, "wb") as f:
            f.write(data[:n])
        return path


class SetupError(Exception):
    pass


class SkipCase(Exception):
    pass


def run_bad_input(opts, case, table):
    name, ef = case["name"], case["expect_fail"]
    b = Build(case["opt_levels"][0], case["v0"])
    tmp = tempfile.mkdtemp(prefix="rtrace-e2e-%s." % name)
    try:
        prep = Prep(opts, case, b, tmp)
        try:
            argv = [prep.expand(a) for a in ef["argv"]]
            contains = [(s, prep.expand(s)) for s in ef.get("stderr_contains", [])]
        except SkipCase as e:
            table.row(name, b.label, "prepare inputs", "SKIP", got=str(e))
            return
        except SetupError as e:
            table.row(name, b.label, "prepare inputs", "NG", detail=str(e))
            return
        r = run([opts.rtrace] + argv, tmp, case["timeout"])
        check_failure(case, b.label if "fixture" in prep.made else "-", r, contains, table)
    finally:
        if opts.keep:
            print("    (kept %s)" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def check_failure(case, lab, r, contains, table):
    name, ef = case["name"], case["expect_fail"]
    detail = run_detail(r)
    if ef.get("exit_nonzero", True):
        ok = not (r.timed_out or r.failed) and r.rc > 0
        table.row(name, lab, "exit status", "OK" if ok else "NG",
                  "non-zero exit", r.describe(), detail=detail)
    lines = r.err.splitlines()
    if "stderr_lines" in ef:
        n = ef["stderr_lines"]
        table.row(name, lab, "stderr: number of lines", "OK" if len(lines) == n else "NG",
                  n, len(lines), detail=detail)
    bad = [l for l in lines if not l.startswith(RTRACE_PREFIX)]
    table.row(name, lab, 'stderr: every line starts "rtrace: "', "NG" if bad else "OK",
              "", _text(bad[0]) if bad else "", detail=detail)
    err = _text(r.err)
    for raw, s in contains:
        table.row(name, lab, "stderr contains %s" % raw, "OK" if s in err else "NG",
                  s, err.strip().split("\n")[0] if err else "(empty)", detail=detail)
    for rx in ef.get("stderr_matches", []):
        ok = re.search(rx, err, re.IGNORECASE) is not None
        table.row(name, lab, "stderr matches /%s/i" % rx, "OK" if ok else "NG",
                  "", err.strip().split("\n")[0] if err else "(empty)", detail=detail)
    if ef.get("stdout_empty"):
        table.row(name, lab, "stdout empty", "OK" if not r.out else "NG",
                  "0 bytes", "%d bytes" % len(r.out), detail=_text(r.out[:1000]))


# ---- a session case -------------------------------------------------------

COUNT_PLACEHOLDER = re.compile(r"\{count:([^}+]*?)(?:([+-])(\d+))?\}")


def session_expand(s, exp, fixed):
    """Placeholders of a session case: {count:PATH[+-N]} from the
    fixture's COUNT lines, then {tmp}, {fixture}, {missing}."""
    def count(m):
        if m.group(1) not in exp.count:
            raise SetupError("{count:%s}: the fixture prints no COUNT for it" % m.group(1))
        n = exp.count[m.group(1)]
        if m.group(2):
            n = n + int(m.group(3)) if m.group(2) == "+" else n - int(m.group(3))
        return str(n)
    s = COUNT_PLACEHOLDER.sub(count, s)
    for k, v in fixed.items():
        s = s.replace("{%s}" % k, v)
    return s


def in_order(text, parts):
    """The first of parts not found in text after the previous one, or None."""
    at = 0
    for p in parts:
        i = text.find(p, at)
        if i < 0:
            return p
        at = i + len(p)
    return None


def check_session_output(cx, ses, r, expand):
    out, err = _text(r.out), _text(r.err)
    detail = run_detail(r) + "\nstdout:\n" + out[-3000:]
    want = ses["exit"]
    cx.row("exit status", "OK" if not r.timed_out and r.rc == want else "NG",
           want, r.describe(), detail=detail)
    for key, text in (("stdout", out), ("stderr", err)):
        parts = [expand(p) for p in ses.get(key + "_contains", [])]
        missing = in_order(text, parts)
        if parts:
            cx.row("%s contains, in order" % key, "NG" if missing else "OK",
                   "%d strings" % len(parts), "missing: " + missing if missing else "all",
                   detail=detail)
        for rx in ses.get(key + "_matches", []):
            rx = expand(rx)
            ok = re.search(rx, text, re.MULTILINE) is not None
            cx.row("%s matches /%s/" % (key, rx), "OK" if ok else "NG", detail=detail)
    for p in ses.get("stdout_lacks", []):
        cx.row("stdout lacks %s" % p, "NG" if expand(p) in out else "OK", detail=detail)
    if ses.get("stdout_empty"):
        cx.row("stdout empty", "OK" if not r.out else "NG", "0 bytes",
               "%d bytes" % len(r.out), detail=detail)
    if "stderr_lines" in ses:
        n = len(err.splitlines())
        cx.row("stderr: number of lines", "OK" if n == ses["stderr_lines"] else "NG",
               ses["stderr_lines"], n, detail=detail)
    bad = [l for l in err.splitlines() if not l.startswith("rtrace: ")]
    cx.row('stderr: every line starts "rtrace: "', "NG" if bad else "OK", "",
           bad[0] if bad else "", detail=detail)
    for f in ses.get("files", []):
        path = os.path.join(cx.tmp, expand(f))
        ok = os.path.exists(path) and os.path.getsize(path) > 0
        cx.row("wrote " + f, "OK" if ok else "NG")


def run_session(opts, case, b, tmp, table):
    cx = Ctx(opts, case, b, b.label, tmp, table)
    ses = case["session"]
    native = run([b.exe] + list(case["args"]), tmp, case["timeout"])
    exp = apply_case_counts(case, parse_expectations(native.out))
    fixed = {"tmp": tmp, "fixture": b.exe, "missing": os.path.join(tmp, "no-such-program")}
    expand = lambda t: session_expand(t, exp, fixed)
    if "script" in ses:
        root = os.path.dirname(os.path.dirname(opts.fixtures))
        with open(os.path.join(root, ses["script"]), encoding="utf-8") as f:
            text = f.read()
    else:
        text = ses["text"]
    script = os.path.join(tmp, "session.rtx")
    with open(script, "w", encoding="utf-8") as f:
        f.write(expand(text))
    cmd = [opts.rtrace, "-x", script]
    if ses.get("program", True):
        cmd += ["--", b.exe] + list(case["args"])
    r = run(cmd, tmp, case["timeout"])
    check_session_output(cx, ses, r, expand)


def run_session_case(opts, case, table):
    builds = [Build(o, False) for o in case["opt_levels"]]
    build_all(opts, case["fixture"], builds)
    for b in builds:
        if b.error:
            table.row(case["name"], b.label, "build", "NG", detail=b.error)
            continue
        tmp = tempfile.mkdtemp(prefix="rtrace-e2e-%s-%s." % (case["name"], b.label))
        try:
            run_session(opts, case, b, tmp, table)
        except SetupError as e:
            table.row(case["name"], b.label, "prepare inputs", "NG", detail=str(e))
        finally:
            if opts.keep:
                print("    (kept %s)" % tmp)
            else:
                shutil.rmtree(tmp, ignore_errors=True)


# ---- main ---------------------------------------------------------------

def die(msg):
    print("runtest.py: " + msg, file=sys.stderr)
    sys.exit(2)


def parse_args():
    def own(ap):
        ap.add_argument("--keep", action="store_true", help="keep temporary dirs and logs")
        ap.add_argument("--engine", choices=("jump", "inline", "trap"),
                        help="record with this engine (default: rtrace's)")
        ap.add_argument("cases", nargs="+", help="case files (cases/t###_name.py)")
    opts = driver.options("rtrace end-to-end tests (see the top of this file)", own)
    if not shutil.which(opts.rustc):
        die("rustc not found (%s): the end-to-end tests build Rust fixtures; "
            "install a Rust toolchain (rustup, or apt-get install rustc) and "
            "reconfigure, or pass --rustc PATH" % opts.rustc)
    if not (os.path.isfile(opts.rtrace) and os.access(opts.rtrace, os.X_OK)):
        die("rtrace binary not found or not executable: %s (build it first)" % opts.rtrace)
    return opts


def main():
    signal.signal(signal.SIGTERM, _on_termination)
    signal.signal(signal.SIGINT, _on_termination)
    # Programs killed by a signal on purpose leave no core file behind.
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    opts = parse_args()
    cases = []
    for path in opts.cases:
        try:
            cases.append(load_case(path))
        except (OSError, ValueError, SyntaxError) as e:
            die(str(e))
    table = Table()
    table.header()
    for case in cases:
        if case["session"]:
            run_session_case(opts, case, table)
        elif case["expect_fail"]:
            run_bad_input(opts, case, table)
        else:
            run_normal(opts, case, table)
    table.summary()
    return 1 if table.counts["NG"] else 0


if __name__ == "__main__":
    sys.exit(main())
