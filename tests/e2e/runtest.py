#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rtrace end-to-end test runner.

    runtest.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR CASE.py...

Builds the case's Rust fixture, runs it natively and under `rtrace record`,
then compares `rtrace report --format json` with the counts the fixture
printed itself.  Prints one table row per (case, build, check) with
OK / NG / SKIP and the expected and obtained figures; exits 0 only when no
row is NG.  Python 3 standard library only.

FIXTURES  (DIR/<name>.rs, one std-only file each; crate name = file stem)

  Each fixture counts its own calls by construction and prints, on stdout:
    COUNT <path> <n>                 calls of the functions named <path>
    COUNTI <name> <n>                calls of one v0-named instance
    TIME <path> <total_ns> <self_ns> per-call total and self times
  <path> may contain spaces (`<traits::Circle as traits::Shape>::area`);
  the numbers are the last fields of the line.

CASE FILES  (cases/t###_name.py: module-level variables, nothing else)

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
  timeout         int    seconds allowed to each run           120
  expect_fail     dict   makes it a bad-input case (below)     None
  cut_bytes       int    size of {cut_log}                     10

CHECKS OF A NORMAL CASE, for each build (O0, O3, O0-v0, O3-v0)

  build            rustc --edition 2021 -C opt-level=N -g [-C symbol-mangling-
                   version=v0]; cached in --build (rebuilt when the source is
                   newer), written under a temporary name and renamed, so
                   parallel runners can share the directory
  native run       the fixture alone; it must print at least one COUNT line
  record ...       `rtrace record -o LOG -f GLOB... -- FIXTURE ARGS`: the same
                   exit status as the native run (128+N for a signal N), the
                   same stdout byte for byte, the same stderr once lines that
                   start with "rtrace: " are removed
  report           `rtrace report --format json LOG` exits 0 with valid JSON;
                   its exit_status is the native one (when that one exited)
  COUNT <path>     the sum of "calls" over the report's functions whose name,
                   in legacy form, is <path> equals n exactly.  Legacy form:
                   v0 generic arguments `::<...>` removed and `{closure#N}`
                   written `{{closure}}`, which leaves legacy names unchanged
  COUNTI <name>    v0 builds only (SKIP in legacy builds): the sum of "calls"
                   over functions named exactly <name> equals n exactly
  TIME <path>      total_ns/calls and self_ns/calls, summed over the
                   functions selected as for COUNT, are within
                   time_tolerance of the fixture's figures

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

EXIT STATUS
  0  every row OK or SKIP      1  some row NG      2  usage or setup error
  (a missing rustc or rtrace is a setup error: the run fails loudly)
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

RTRACE_PREFIX = b"rtrace: "
DEFAULTS = {
    "args": [],
    "patterns": None,  # fixture + "::*"
    "exclude": [],
    "record_options": [],
    "opt_levels": ["0", "3"],
    "v0": False,
    "time_tolerance": 0.10,
    "timeout": 120,
    "expect_fail": None,
    "cut_bytes": 10,
}
KNOWN_VARS = set(DEFAULTS) | {"fixture"}


# ---- the table ----------------------------------------------------------

class Table:
    """Rows printed as they come, counted for the summary and exit code."""

    def __init__(self):
        self.counts = {"OK": 0, "NG": 0, "SKIP": 0}

    def row(self, case, build, check, result, expected="", got="", detail=None):
        self.counts[result] += 1
        line = "%-22s %-6s %-52s %-4s  %-20s %s" % (
            case, build, check, result, _clip(expected), _clip(got))
        print(line.rstrip(), flush=True)
        if detail and result == "NG":
            for d in detail.rstrip("\n").split("\n")[:25]:
                print("    | " + d, flush=True)

    def header(self):
        print("%-22s %-6s %-52s %-4s  %-20s %s" % (
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
            if not k.startswith("__") and not callable(v)}
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
    case["name"] = os.path.splitext(os.path.basename(path))[0]
    return case


# ---- building fixtures --------------------------------------------------

class Build:
    def __init__(self, opt, v0):
        self.opt = opt
        self.v0 = v0
        self.label = "O%s%s" % (opt, "-v0" if v0 else "")
        self.exe = None
        self.error = None


def build_fixture(opts, fixture, b):
    """Compiles fixture for build b (cached); sets b.exe or b.error."""
    src = os.path.join(opts.fixtures, fixture + ".rs")
    out = os.path.join(opts.build, "%s-%s" % (fixture, b.label))
    if not os.path.exists(src):
        b.error = "no such fixture: %s" % src
        return
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src):
        b.exe = out
        return
    tmpdir = tempfile.mkdtemp(prefix=".%s-%s." % (fixture, b.label), dir=opts.build)
    try:
        tmp_out = os.path.join(tmpdir, fixture)
        cmd = [opts.rustc, "--edition", "2021", "--crate-name", fixture,
               "--crate-type", "bin", "-C", "opt-level=" + b.opt, "-g"]
        if b.v0:
            cmd += ["-C", "symbol-mangling-version=v0"]
        cmd += ["-o", tmp_out, src]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0 or not os.path.exists(tmp_out):
            b.error = "rustc failed (%d):\n%s\n%s" % (
                p.returncode, " ".join(cmd), _text(p.stdout))
            return
        os.replace(tmp_out, out)  # atomic: a reader sees old or new, whole
        b.exe = out
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def build_all(opts, fixture, builds):
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(builds)) as ex:
        list(ex.map(lambda b: build_fixture(opts, fixture, b), builds))


# ---- running programs ---------------------------------------------------

class Run:
    def __init__(self, cmd, rc, out, err, secs, timed_out=False, failed=None):
        self.cmd, self.rc, self.out, self.err = cmd, rc, out, err
        self.secs, self.timed_out, self.failed = secs, timed_out, failed

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


def run(cmd, cwd, timeout):
    """Runs cmd in a process group of its own (rtrace, its tracee and the
    tracee's children), so that a timeout can kill all of them."""
    global _running
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    except OSError as e:
        return Run(cmd, 127, b"", b"", 0.0, failed=str(e))
    _running = p.pid
    try:
        out, err = p.communicate(timeout=timeout)
        return Run(cmd, p.returncode, out, err, time.monotonic() - t0)
    except subprocess.TimeoutExpired:
        _kill_group(p.pid)
        out, err = p.communicate()
        return Run(cmd, p.returncode, out, err, time.monotonic() - t0, True)
    finally:
        _running = None


def record_cmd(opts, case, exe, log):
    cmd = [opts.rtrace, "record", "-o", log]
    for g in case["patterns"]:
        cmd += ["-f", g]
    for g in case["exclude"]:
        cmd += ["--exclude", g]
    cmd += list(case["record_options"]) + ["--", exe] + list(case["args"])
    return cmd


def run_detail(r):
    return "$ %s\n%s\nstderr:\n%s" % (
        " ".join(r.cmd), r.describe(), _text(r.err[-3000:]))


# ---- what the fixture says ----------------------------------------------

def parse_expectations(stdout):
    """COUNT/COUNTI/TIME lines -> lists of (kind, path, numbers)."""
    exp = []
    for line in _text(stdout).splitlines():
        f = line.split()
        if not f or f[0] not in ("COUNT", "COUNTI", "TIME"):
            continue
        nnum = 2 if f[0] == "TIME" else 1
        if len(f) < 2 + nnum:
            raise ValueError("malformed line: %r" % line)
        path = " ".join(f[1:-nnum])
        exp.append((f[0], path, [int(x) for x in f[-nnum:]]))
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


def not_probed_reason(report, path, exact):
    key = (lambda n: n) if exact else legacy_form
    why = [np.get("reason", "?") for np in report.get("not_probed", [])
           if key(np.get("name", "")) == path]
    return ("; not probed: " + "; ".join(sorted(set(why)))) if why else ""


# ---- a normal case ------------------------------------------------------

def check_build(opts, case, b, table):
    name, lab = case["name"], b.label
    if b.error:
        table.row(name, lab, "build", "NG", detail=b.error)
        return
    table.row(name, lab, "build", "OK", got=os.path.basename(b.exe))
    tmp = tempfile.mkdtemp(prefix="rtrace-e2e-%s-%s." % (name, lab))
    try:
        check_runs(opts, case, b, tmp, table)
    finally:
        if opts.keep:
            print("    (kept %s)" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def check_runs(opts, case, b, tmp, table):
    name, lab, to = case["name"], b.label, case["timeout"]
    native = run([b.exe] + list(case["args"]), tmp, to)
    try:
        exp = parse_expectations(native.out)
    except ValueError as e:
        exp, bad = [], str(e)
    else:
        bad = None if exp else "no COUNT lines on stdout"
    if native.timed_out or bad:
        table.row(name, lab, "native run", "NG", "COUNT lines",
                  native.describe() if native.timed_out else bad,
                  detail=run_detail(native))
        return
    table.row(name, lab, "native run", "OK", got="%s, %d lines, %.2f s" % (
        native.describe(), len(exp), native.secs))

    log = os.path.join(tmp, "run.rtrace")
    rec = run(record_cmd(opts, case, b.exe, log), tmp, to)
    ok = not (rec.timed_out or rec.failed) and rec.status() == native.status()
    table.row(name, lab, "record: exit status", "OK" if ok else "NG",
              native.describe(), rec.describe(), detail=run_detail(rec))
    same = rec.out == native.out
    table.row(name, lab, "record: program stdout unchanged", "OK" if same else "NG",
              "%d bytes" % len(native.out), "%d bytes" % len(rec.out),
              detail=first_difference(native.out, rec.out))
    err = b"".join(l for l in rec.err.splitlines(keepends=True)
                   if not l.startswith(RTRACE_PREFIX))
    same = err == native.err
    table.row(name, lab, "record: program stderr unchanged", "OK" if same else "NG",
              "%d bytes" % len(native.err), "%d bytes" % len(err),
              detail=first_difference(native.err, err) + "\n" + run_detail(rec))

    report = get_report(opts, case, b, log, tmp, table)
    if report is None:
        for kind, path, _ in exp:
            table.row(name, lab, "%s %s" % (kind, path), "NG", got="no report")
        return
    if native.rc >= 0:
        got = (report.get("end"), report.get("exit_status"))
        ok = got == ("exited", native.rc)
        table.row(name, lab, "report: end, exit_status", "OK" if ok else "NG",
                  "exited %d" % native.rc, "%s %s" % got)
    for kind, path, nums in exp:
        if kind == "COUNT":
            check_count(case, b, report, path, nums[0], False, table)
        elif kind == "COUNTI":
            if b.v0:
                check_count(case, b, report, path, nums[0], True, table)
            else:
                table.row(name, lab, "COUNTI " + path, "SKIP", nums[0],
                          "legacy mangling: instances share a name")
        else:
            check_time(case, b, report, path, nums, table)


def get_report(opts, case, b, log, tmp, table):
    name, lab = case["name"], b.label
    rep = run([opts.rtrace, "report", "--format", "json", log], tmp, case["timeout"])
    if rep.rc != 0:
        table.row(name, lab, "report: json", "NG", "exit 0", rep.describe(),
                  detail=run_detail(rep))
        return None
    try:
        report = json.loads(_text(rep.out))
        if not isinstance(report, dict) or not isinstance(report.get("functions"), list):
            raise ValueError("no \"functions\" array")
    except ValueError as e:
        table.row(name, lab, "report: json", "NG", "valid JSON", str(e),
                  detail=_text(rep.out[:2000]))
        return None
    table.row(name, lab, "report: json", "OK", got="%d functions, %s events" % (
        len(report["functions"]), report.get("events", "?")))
    return report


def check_count(case, b, report, path, want, exact, table):
    fns = select(report, path, exact)
    got = sum(int(f.get("calls", 0)) for f in fns)
    res = "OK" if got == want else "NG"
    note = ""
    if res == "NG":
        note = " (%d entries)" % len(fns) + not_probed_reason(report, path, exact)
    table.row(case["name"], b.label, "%s %s" % ("COUNTI" if exact else "COUNT", path),
              res, want, "%d%s" % (got, note))


def check_time(case, b, report, path, nums, table):
    fns = select(report, path, False)
    calls = sum(int(f.get("calls", 0)) for f in fns)
    tol = case["time_tolerance"]
    for what, key, want in (("total", "total_ns", nums[0]), ("self", "self_ns", nums[1])):
        check = "TIME %s %s/call" % (path, what)
        exp = "%d ±%g%%" % (want, tol * 100)
        if calls == 0:
            table.row(case["name"], b.label, check, "NG", exp,
                      "no calls" + not_probed_reason(report, path, False))
            continue
        got = sum(int(f.get(key, 0)) for f in fns) / calls
        err = (got - want) / want if want else float("inf")
        res = "OK" if abs(err) <= tol else "NG"
        table.row(case["name"], b.label, check, res, exp, "%.0f (%+.1f%%)" % (got, err * 100))


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else b"<end>"
        y = lb[i] if i < len(lb) else b"<end>"
        if x != y:
            return "first difference, line %d:\n  native: %r\n  traced: %r" % (i + 1, x, y)
    return "" if a == b else "same lines, different line ends"


def run_normal(opts, case, table):
    builds = [Build(o, v0) for v0 in ([False, True] if case["v0"] else [False])
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


# ---- main ---------------------------------------------------------------

def die(msg):
    print("runtest.py: " + msg, file=sys.stderr)
    sys.exit(2)


def parse_args():
    ap = argparse.ArgumentParser(
        description="rtrace end-to-end tests (see the top of this file)")
    ap.add_argument("--rtrace", required=True, help="the rtrace binary")
    ap.add_argument("--rustc", required=True, help="the rustc binary")
    ap.add_argument("--fixtures", required=True, help="directory of fixture .rs files")
    ap.add_argument("--build", required=True, help="directory for built fixtures")
    ap.add_argument("--keep", action="store_true", help="keep temporary dirs and logs")
    ap.add_argument("cases", nargs="+", help="case files (cases/t###_name.py)")
    opts = ap.parse_args()
    rustc = shutil.which(opts.rustc)
    if not rustc:
        die("rustc not found (%s): the end-to-end tests build Rust fixtures; "
            "install a Rust toolchain (rustup, or apt-get install rustc) and "
            "reconfigure, or pass --rustc PATH" % opts.rustc)
    opts.rustc = rustc
    if not (os.path.isfile(opts.rtrace) and os.access(opts.rtrace, os.X_OK)):
        die("rtrace binary not found or not executable: %s (build it first)" % opts.rtrace)
    opts.rtrace = os.path.abspath(opts.rtrace)
    opts.fixtures = os.path.abspath(opts.fixtures)
    opts.build = os.path.abspath(opts.build)
    os.makedirs(opts.build, exist_ok=True)
    return opts


def main():
    signal.signal(signal.SIGTERM, _on_termination)
    signal.signal(signal.SIGINT, _on_termination)
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
        if case["expect_fail"]:
            run_bad_input(opts, case, table)
        else:
            run_normal(opts, case, table)
    table.summary()
    return 1 if table.counts["NG"] else 0


if __name__ == "__main__":
    sys.exit(main())
