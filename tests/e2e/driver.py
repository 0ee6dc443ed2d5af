# SPDX-License-Identifier: GPL-2.0-or-later
"""What the end-to-end drivers share.

runtest.py runs the case files; the side drivers (attach.py, errors.py,
views_check.py...) each check one thing a case file cannot express.  All
of them take --rtrace, --rustc, --fixtures and --build, build the Rust
fixtures the same way (cached in --build, shared between drivers), print
one line per check with OK, NG or SKIP, and exit 1 when a check failed.
This module holds those pieces:

  options()          the four options (and a driver's own), paths absolute
  fixture()          a fixture built at an opt level, its path
  Build, build_fixture   the build itself (runtest.py builds several at once)
  row(), finish()    one check's line; the count of NG and the exit status
  run()              a command, its output as text, within a timeout
  report_json(), calls(), calls_by_name()   what a log's report says
  counts()           the COUNT lines a fixture prints of its own calls
  side_main()        main() of a driver that checks one fixture
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

FAILED = []   # the names of the checks that failed, in order
WIDTH = 64    # the column of OK / NG


def text(b):
    return b.decode("utf-8", "replace")


# ---- options --------------------------------------------------------------

def options(description=None, extra=None):
    """The options every driver takes (--rtrace, --rustc, --fixtures,
    --build) and, through @extra(parser), its own; rustc found on PATH,
    the paths made absolute, the build directory made."""
    ap = argparse.ArgumentParser(description=description)
    for a in ("--rtrace", "--rustc", "--fixtures", "--build"):
        ap.add_argument(a, required=True)
    if extra:
        extra(ap)
    args = ap.parse_args()
    args.rustc = shutil.which(args.rustc) or args.rustc
    for a in ("rtrace", "fixtures", "build"):
        setattr(args, a, os.path.abspath(getattr(args, a)))
    os.makedirs(args.build, exist_ok=True)
    return args


# ---- building fixtures ------------------------------------------------------

class Build:
    def __init__(self, opt, v0, libtest=False):
        self.opt = opt
        self.v0 = v0
        self.libtest = libtest
        self.label = "O%s%s" % (opt, "-v0" if v0 else "")
        self.exe = None
        self.error = None


def build_fixture(opts, fixture, b):
    """Compiles fixture for build b (cached); sets b.exe or b.error."""
    src = os.path.join(opts.fixtures, fixture + ".rs")
    out = os.path.join(opts.build, "%s-%s%s" % (fixture, b.label, "-test" if b.libtest else ""))
    if not os.path.exists(src):
        b.error = "no such fixture: %s" % src
        return
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src):
        b.exe = out
        return
    tmpdir = tempfile.mkdtemp(prefix=".%s-%s." % (fixture, b.label), dir=opts.build)
    try:
        tmp_out = os.path.join(tmpdir, fixture)
        cmd = [opts.rustc, "--edition", "2021", "--crate-name", fixture]
        cmd += ["--test"] if b.libtest else ["--crate-type", "bin"]
        cmd += ["-C", "opt-level=" + b.opt, "-g"]
        if b.v0:
            cmd += ["-C", "symbol-mangling-version=v0"]
        cmd += ["-o", tmp_out, src]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0 or not os.path.exists(tmp_out):
            b.error = "rustc failed (%d):\n%s\n%s" % (
                p.returncode, " ".join(cmd), text(p.stdout))
            return
        os.replace(tmp_out, out)  # atomic: a reader sees old or new, whole
        b.exe = out
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def fixture(args, name, opt):
    """The path of fixture @name built at -O@opt (cached); RuntimeError
    with rustc's words when it does not build."""
    b = Build(opt, False)
    build_fixture(args, name, b)
    if b.error:
        raise RuntimeError(b.error)
    return b.exe


# ---- checks -------------------------------------------------------------------

def row(name, ok, detail=""):
    """One check's line: @ok True (OK), False (NG, remembered in FAILED)
    or a word of its own (SKIP)."""
    status = ok if isinstance(ok, str) else "OK" if ok else "NG"
    print("%-*s %s  %s" % (WIDTH, name, status, detail), flush=True)
    if status == "NG":
        FAILED.append(name)


def finish(what="%d NG"):
    """Prints the count of failed checks (@what formats it); the exit
    status: 1 when one failed."""
    print(what % len(FAILED))
    return 1 if FAILED else 0


# ---- running ------------------------------------------------------------------

def run(cmd, timeout=120, **kw):
    """@cmd run to its end, its output as text; None when it did not end
    within @timeout seconds (it is killed)."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        return None


def report_json(rtrace, log, *extra, wrapper=()):
    """`rtrace report --format json` of @log (with options @extra, run
    under @wrapper) as a dict; None when rtrace fails."""
    r = run(list(wrapper) + [rtrace, "report", "--format", "json"] + list(extra) + [log])
    if r is None or r.returncode != 0:
        return None
    return json.loads(r.stdout)


def calls(rep, name):
    """The calls of the rows of function @name in report @rep, added up."""
    return sum(f["calls"] for f in rep["functions"] if f["name"] == name)


def calls_by_name(rep):
    """{name: calls} of report @rep, rows of one name added up."""
    got = {}
    for f in rep["functions"]:
        got[f["name"]] = got.get(f["name"], 0) + f["calls"]
    return got


def counts(out):
    """The fixture's own COUNT lines in @out: {name: calls}, lines of one
    name added up (each process of a program prints its own)."""
    got = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0] == "COUNT":
            name = " ".join(f[1:-1])  # <T as Trait>::f has spaces
            got[name] = got.get(name, 0) + int(f[-1])
    return got


def side_main(doc, name, body, opt="0", with_opts=False):
    """main() of a driver that checks one fixture: the options, fixture
    @name built at -O@opt, then body(rtrace, exe, tmp) (with @with_opts,
    body(opts, exe, tmp), to build more) with a temporary directory
    removed after.  Returns the exit status."""
    opts = options(doc.split("\n")[1])
    try:
        exe = fixture(opts, name, opt)
    except RuntimeError as e:
        print("build the %s fixture  NG  %s" % (name, e))
        return 1
    tmp = tempfile.mkdtemp(prefix="rtrace-e2e-%s." % name)
    try:
        body(opts if with_opts else opts.rtrace, exe, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return finish()
