#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A newcomer's first hour: the README's commands, typed in order.

    newcomer.py --source DIR --build DIR

In a copy of the checkout's files (what a clone has: git's tracked files,
as they are in the work tree), with a fresh HOME that holds only Debian's
/etc/skel/.profile (and, after it, the two lines rustup's installer adds
when rustc is rustup's), every command runs in a login shell, as typed:

  setup      the README's "Two commands" block is `make demo` and `make
             test`; `make demo` runs here (make test is what runs this),
             prints no warning, builds no test program, and its table has
             the calls of the README's sample, row for row (the sample
             must be a real run of the current code); the calls that the
             demo's construction fixes (1000 documents, 900 of them
             distinct, 2 queries...) are right; it names the next step
  own        the "On your own program" block, line by line: `make
             install` (and man finds its pages), then rtrace on the demo copied to ./app with
             my_crate read as demo, `cargo rtrace test` and `cargo rtrace
             run --release -- ARGS` (ARGS: 120) on a copy of
             examples/wordcount, whose calls are those of the crate's
             construction (cargo_check.py), and `rtrace report --format
             json rtrace.data` of the first run
  uninstall  `make uninstall` leaves no rtrace on the login shell's PATH

It fails on the first command that does not work as the README says.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cargo_check  # noqa: E402
from driver import row, finish  # noqa: E402

SKIP = 77

# demo.rs's construction: N = 1000 documents from 900 seeds, two queries
DEMO = {"demo::main": 1, "demo::gen::document": 1000,
        "demo::index::Index::add": 1000, "demo::text::checksum": 1000,
        "demo::text::tokenize": 900, "demo::index::Index::query": 2,
        "demo::top_words": 1}


class Stop(Exception):
    """A command did not work as the README says: the rest cannot run."""


def block_after(readme, heading, start=None):
    """The lines of the first code block under ## @heading (after the line
    starting with @start when given)."""
    part = readme.split("\n## " + heading + "\n", 1)
    if len(part) < 2:
        raise Stop("README has no section %r" % heading)
    body = part[1].split("\n## ", 1)[0]
    if start:
        body = body[body.index("\n" + start):]
    m = re.search(r"```\n(.*?)```", body, re.S)
    if not m:
        raise Stop("README's %r has no code block" % heading)
    return m.group(1).splitlines()


def commands(lines):
    """The commands of a code block: its lines without their comments."""
    return [ln.split(" #", 1)[0].strip() for ln in lines
            if ln.strip() and not ln.startswith("#")]


def table_calls(text):
    """{function: calls} of the rows of an rtrace table in @text."""
    got = {}
    for ln in text.splitlines():
        m = re.match(r"^ +(\d+) +\S", ln)
        if not m:
            continue
        names = [f for f in re.split(r" {2,}", ln.strip())
                 if "::" in f or f.startswith("<")]
        if names:
            name = names[0].split(" [", 1)[0]
            got[name] = got.get(name, 0) + int(m.group(1))
    return got


def fresh_home(root, rustc):
    """A HOME as useradd makes it, plus what rustup adds to ~/.profile."""
    home = os.path.join(root, "home")
    os.makedirs(home)
    profile = os.path.join(home, ".profile")
    if os.path.exists("/etc/skel/.profile"):
        shutil.copy("/etc/skel/.profile", profile)
    else:   # the stanza of Debian's /etc/skel/.profile this is about
        with open(profile, "w") as f:
            f.write('if [ -d "$HOME/.local/bin" ] ; then\n'
                    '    PATH="$HOME/.local/bin:$PATH"\nfi\n')
    bindir = os.path.dirname(os.path.realpath(shutil.which(rustc) or rustc))
    if os.path.basename(os.path.realpath(rustc)) == "rustup" or \
            not bindir.startswith("/usr/"):
        rustup = os.environ.get("RUSTUP_HOME") or \
            os.path.expanduser("~/.rustup")
        with open(profile, "a") as f:
            f.write('export RUSTUP_HOME="%s"\nPATH="%s:$PATH"\n'
                    % (rustup, os.path.dirname(shutil.which(rustc))))
    return home


class Shell:
    """Login shells of the fresh HOME, one per command."""

    def __init__(self, home):
        self.env = {"HOME": home, "USER": os.environ.get("USER", "root"),
                    "LOGNAME": os.environ.get("LOGNAME", "root"),
                    "LANG": "C.UTF-8", "SHELL": "/bin/bash",
                    "PATH": "/usr/local/bin:/usr/bin:/bin"}

    def run(self, cmd, cwd, timeout=900):
        r = subprocess.run(["bash", "-lc", cmd], cwd=cwd, env=self.env,
                           capture_output=True, text=True, timeout=timeout)
        ok = r.returncode == 0
        row("`%s` exits 0" % cmd, ok,
            "" if ok else "status %d: %s" % (r.returncode,
                                             r.stderr.strip()[-1500:]))
        if not ok:
            raise Stop(cmd)
        return r


def copy_checkout(source, dest):
    """What a clone of @source holds: its tracked files, as they are."""
    r = subprocess.run(["git", "-C", source, "ls-files", "-z"],
                       capture_output=True)
    if r.returncode:
        shutil.copytree(source, dest, symlinks=True, ignore=shutil.
                        ignore_patterns("build*", "target", ".git"))
        return
    for rel in r.stdout.decode().split("\0"):
        src = os.path.join(source, rel)
        if rel and os.path.lexists(src):
            os.makedirs(os.path.dirname(os.path.join(dest, rel)),
                        exist_ok=True)
            shutil.copy2(src, os.path.join(dest, rel), follow_symlinks=False)


def check_setup(sh, readme, clone):
    setup = commands(block_after(readme, "Two commands"))
    row("setup: the README's two commands are make demo and make test",
        setup == ["make demo", "make test"], repr(setup))
    r = sh.run("make demo", clone)
    out = r.stdout + r.stderr
    warn = [ln for ln in out.splitlines() if "warning" in ln.lower()]
    row("setup: make demo prints no warning", not warn, " | ".join(warn))
    tests = [ln for ln in out.splitlines() if re.search(r"target (test|fuzz)-", ln)]
    row("setup: make demo builds no test program", not tests,
        " | ".join(tests[:3]))
    got = table_calls(r.stderr)
    sample = table_calls("\n".join(block_after(
        readme, "Two commands", "`make demo` traces")))
    row("setup: the README's sample has the calls of make demo's table",
        got and got == sample,
        "; ".join("%s: README %s, run %s" % (k, sample.get(k), got.get(k))
                  for k in sorted(set(got) | set(sample))
                  if got.get(k) != sample.get(k)))
    wrong = {k: (got.get(k), n) for k, n in DEMO.items() if got.get(k) != n}
    row("setup: the demo's calls are those of its construction", not wrong,
        repr(wrong))
    row("setup: make demo names make install as the next step",
        "make install" in r.stdout.split("jump probes:")[-1], r.stdout[-300:])
    return got


def check_own(sh, readme, root, clone, demo_calls):
    own = commands(block_after(readme, "On your own program"))
    app = os.path.join(root, "app-dir")
    os.makedirs(app)
    shutil.copy(os.path.join(clone, "build", "examples", "demo"),
                os.path.join(app, "app"))
    crate = os.path.join(root, "wordcount")
    shutil.copytree(os.path.join(clone, "examples", "wordcount"), crate)
    # ./app has no argument: the closure of main that parses it never
    # runs (N is 1000 either way)
    app_calls = {k: n for k, n in demo_calls.items()
                 if k != "demo::main::{{closure}}"}
    first = own[0] if own else ""
    row("own: the block starts with make install", first == "make install",
        first)
    for cmd in own:
        cmd = cmd.replace("my_crate", "demo").replace("ARGS", "120")
        if cmd.startswith("make "):
            sh.run(cmd, clone)
            if cmd == "make install":
                check_man(sh)
        elif cmd.startswith("cargo rtrace test"):
            sh.run(cmd, crate)
            check_cargo_test(crate)
        elif cmd.startswith("cargo rtrace run"):
            sh.run(cmd, crate)
            check_cargo_run(crate)
        elif cmd.startswith("rtrace report --format json"):
            r = sh.run(cmd, app)
            got = {}
            for f in json.loads(r.stdout)["functions"]:
                got[f["name"]] = got.get(f["name"], 0) + f["calls"]
            row("own: the JSON report has the table's calls",
                got == app_calls, repr(got))
        elif cmd.startswith("rtrace "):
            r = sh.run(cmd, app)
            got = table_calls(r.stderr)
            row("own: `%s` makes the demo's table" % cmd, got == app_calls,
                repr(got))
        else:
            row("own: a command this test knows: %s" % cmd, False)


def check_man(sh):
    """man finds the installed pages from the PATH (man-db's manpath)."""
    if not shutil.which("man"):
        row("own: man rtrace finds the installed page", "SKIP", "no man")
        return
    r = subprocess.run(["bash", "-lc", "man -w rtrace cargo-rtrace"],
                       env=sh.env, capture_output=True, text=True)
    local = os.path.join(sh.env["HOME"], ".local", "share", "man")
    pages = r.stdout.split()
    row("own: man rtrace finds the installed page",
        len(pages) == 2 and all(p.startswith(local) for p in pages),
        (r.stdout + r.stderr).strip())


def cargo_report(crate, *args):
    logs = sorted(os.path.join(crate, "target", "rtrace", f) for f in
                  os.listdir(os.path.join(crate, "target", "rtrace"))
                  if f.endswith(".data"))
    return logs, cargo_check.report(RTRACE[0], *args, *logs)


def check_cargo_test(crate):
    logs, rep = cargo_report(crate, "--by", "test")
    seen = cargo_check.by_test(rep)
    bad = {t: seen.get(t) for t, want in cargo_check.TESTS.items()
           if {k: v for k, v in (seen.get(t) or {}).items()
               if k in want or k not in cargo_check.INLINED} != want}
    row("own: cargo rtrace test: each test's calls, in target/rtrace/",
        len(logs) == 3 and not bad, "%d logs; %r" % (len(logs), bad))


def check_cargo_run(crate):
    log = os.path.join(crate, "target", "rtrace", "wordcount.data")
    rep = cargo_check.report(RTRACE[0], log)
    got = cargo_check.crate_calls(rep["functions"])
    got.pop("arg", None)
    want = cargo_check.plus(cargo_check.count_lines(120),
                            {"counter::Counter::top": 1,
                             "counter::intern": 5})
    got = {k: n for k, n in got.items()
           if k in want or k not in cargo_check.INLINED}
    row("own: cargo rtrace run: the calls of count_lines(120) and top(5)",
        got == want and "release" in rep.get("command", ""),
        "%s; %r" % (rep.get("command"), got))


RTRACE = [None]   # the installed rtrace, for reading the logs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--rustc", default="rustc")
    opts = ap.parse_args()
    if not shutil.which("cargo") and not shutil.which(
            os.path.join(os.path.dirname(shutil.which(opts.rustc) or ""),
                         "cargo")):
        print("SKIP: no cargo")
        return SKIP
    root = os.path.abspath(opts.build)
    shutil.rmtree(root, ignore_errors=True)
    clone = os.path.join(root, "rtrace")
    copy_checkout(os.path.abspath(opts.source), clone)
    with open(os.path.join(clone, "README.md")) as f:
        readme = f.read()
    home = fresh_home(root, opts.rustc)
    RTRACE[0] = os.path.join(home, ".local", "bin", "rtrace")
    sh = Shell(home)
    try:
        demo_calls = check_setup(sh, readme, clone)
        check_own(sh, readme, root, clone, demo_calls)
        sh.run("make uninstall", clone)
        r = subprocess.run(["bash", "-lc", "command -v rtrace cargo-rtrace"],
                           env=sh.env, capture_output=True, text=True)
        row("uninstall: no rtrace, no cargo-rtrace left on the PATH",
            r.returncode != 0 and not r.stdout.strip(), r.stdout.strip())
    except Stop as e:
        row("the README's commands ran to the end", False, str(e))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
