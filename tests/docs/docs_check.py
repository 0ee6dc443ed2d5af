#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Docs that cannot rot.

  docs_check.py --source DIR --build DIR

Checks, and says which check failed and where:

  options    every option of `rtrace --help` is described in
             docs/man/rtrace.md and every option described there is in
             --help; the same for cargo-rtrace; the options of the other
             rtrace-*.md pages exist
  layout     docs/how-it-works.md's "The layout" names every folder of
             src/ and every C file in them, and nothing that is gone
  links      every relative link in README.md and docs/ resolves, the
             #anchor included
  man        every page of docs/man/ was built, and man -l renders it
             without a warning (skipped when man is not installed)
  transcripts every ```console block of docs/workflows/ runs: its `$ `
             lines are run in order, in a copy of examples/wordcount, and
             must exit 0 (or the status a `# exit N` line after them
             says); every row of an rtrace table pasted in the block must
             be in the real output with the same count (calls, or
             allocations), in the same group (skipped without cargo)

Exit status 0 when everything checked holds, 1 otherwise.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILS = []


def fail(where, msg):
    FAILS.append(f"{where}: {msg}")


# ---- options -----------------------------------------------------------------
OPT_IN_HELP = re.compile(r"(?:^|[\s,\[])(--[a-z][a-z-]*|-[a-zA-Z])\b")
OPT_IN_MAN = re.compile(r"\*\*((?:\\-\\-|--)[a-z][a-z-]*|-[a-zA-Z])\*\*")


def help_options(program, *command):
    out = subprocess.run([program, *command, "--help"], capture_output=True,
                         text=True, check=True).stdout
    # the option lists only: "  -f, --function=GLOB  what it does"
    opts = set()
    for line in out.splitlines():
        if re.match(r"^\s+(-[a-zA-Z],|--[a-z])", line):
            spec = re.split(r"\s{2,}", line.strip())[0]
            opts.update(OPT_IN_HELP.findall(" " + spec))
    return opts


def man_options(page):
    text = open(page, encoding="utf-8").read()
    m = re.search(r"^# OPTIONS\n(.*?)^# ", text, re.S | re.M)
    if not m:
        return set()
    opts = set()
    for line in m.group(1).splitlines():
        if line.startswith("**"):  # a definition's term
            opts.update(o.replace("\\", "") for o in OPT_IN_MAN.findall(line))
    return opts


def check_options(program, page):
    have, doc = help_options(program), man_options(page)
    name = os.path.basename(page)
    for o in sorted(have - doc):
        fail(name, f"option {o} is in --help but not under OPTIONS")
    for o in sorted(doc - have):
        fail(name, f"option {o} is under OPTIONS but not in --help")


def check_sub_options(program, src):
    """rtrace-X.md describes a subset: each of its options must be in the
    help of `rtrace X --help`, which is shorter than the whole one."""
    whole = help_options(program)
    for name in sorted(os.listdir(os.path.join(src, "docs/man"))):
        if name.startswith("rtrace-") and name.endswith(".md"):
            command = name[len("rtrace-"):-len(".md")]
            have = help_options(program, command)
            if have == whole:
                fail(name, f"rtrace {command} --help prints the whole help")
            for o in sorted(man_options(os.path.join(src, "docs/man",
                                                     name)) - have):
                fail(name, f"option {o} is not in rtrace {command} --help")


# ---- links -------------------------------------------------------------------
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# Pages that other work adds: linked to already, checked once they exist.
PENDING = {"docs/errors.md"}


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}


def markdown_files(src):
    files = [os.path.join(src, "README.md")]
    for root, _, names in os.walk(os.path.join(src, "docs")):
        files += [os.path.join(root, n) for n in sorted(names)
                  if n.endswith(".md")]
    return files


def check_links(src):
    for path in markdown_files(src):
        text = open(path, encoding="utf-8").read()
        text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
        where = os.path.relpath(path, src)
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue        # http:, https:, mailto:
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path),
                                                 file)) if file else path
            if not os.path.exists(dest):
                if os.path.relpath(dest, src) in PENDING:
                    print(f"note: {where} links to {target}, not there yet")
                else:
                    fail(where, f"link to {target}: no such file")
            elif anchor and dest.endswith(".md") and \
                    anchor not in anchors(dest):
                fail(where, f"link to {target}: no such heading")


# ---- man pages ---------------------------------------------------------------
def check_layout(src):
    """"The layout" names each stage folder and each .c file, as they are."""
    with open(os.path.join(src, "docs/how-it-works.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## The layout\n(.*?)^## ", text, re.S | re.M)
    if not m:
        fail("docs/how-it-works.md", 'no "## The layout" section')
        return
    section = m.group(1)
    named_dirs = set(re.findall(r"`src/([a-z]+)/`", section))
    named = set(re.findall(r"`([a-z0-9_-]+\.c|[a-z]+/)`", section)) - {"src/"}
    have_dirs = {d for d in os.listdir(os.path.join(src, "src"))
                 if os.path.isdir(os.path.join(src, "src", d))}
    for d in sorted(have_dirs - named_dirs):
        fail("docs/how-it-works.md", f"The layout: src/{d}/ is not described")
    for d in sorted(named_dirs - have_dirs):
        fail("docs/how-it-works.md", f"The layout: src/{d}/ does not exist")
    have = set()
    for d in have_dirs:
        for e in os.listdir(os.path.join(src, "src", d)):
            full = os.path.join(src, "src", d, e)
            have.add(e + "/" if os.path.isdir(full) else e)
    have = {e for e in have if e.endswith((".c", "/"))}
    for e in sorted(have - named):
        fail("docs/how-it-works.md", f"The layout: {e} is not named")
    for e in sorted(named - have):
        fail("docs/how-it-works.md", f"The layout: {e} is named but gone")


def check_man(src, build):
    pages = sorted(n[:-3] for n in os.listdir(os.path.join(src, "docs/man"))
                   if n.endswith(".md"))
    built = os.listdir(os.path.join(build, "man"))
    man = shutil.which("man")
    if not man:
        print("SKIP man -l: man is not installed")
    for name in pages:
        out = [b for b in built if b.rsplit(".", 1)[0] == name]
        if not out:
            fail(f"docs/man/{name}.md", "no man page built from it")
            continue
        if not man:
            continue
        env = dict(os.environ, MANWIDTH="80", MAN_KEEP_STDERR="1")
        r = subprocess.run([man, "--warnings", "-l",
                            os.path.join(build, "man", out[0])],
                           capture_output=True, text=True, env=env)
        if r.returncode or r.stderr.strip() or "NAME" not in r.stdout:
            fail(f"man/{out[0]}", "man -l: " +
                 (r.stderr.strip() or f"status {r.returncode}"))


# ---- transcripts -------------------------------------------------------------
def blocks(path):
    """The ```console blocks of @path: (line number, lines)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            yield i + 1, lines[i + 1:j]
            i = j
        i += 1


FIGURE = re.compile(r"^(\d[\d.,]*( (ns|µs|ms|s|B|KiB|MiB|GiB))?|\d+%)$")
MARKS = re.compile(r"^C?S?T?$")  # a row's trust marks, before its name


def row_name(fields):
    """The name after the figures of a row: counts, times, sizes, shares,
    and the marks (which depend on the run's timing).  Columns widen for
    large values, so positions cannot be trusted."""
    i = 0
    while i < len(fields):
        if i + 1 < len(fields) and \
                FIGURE.match(fields[i] + " " + fields[i + 1]) and \
                not fields[i + 1][0].isdigit():
            i += 2
        elif FIGURE.match(fields[i]):
            i += 1
        else:
            break
    if i + 1 < len(fields) and MARKS.match(fields[i]):
        i += 1
    return " ".join(fields[i:])


def table_rows(text):
    """{(table, group, name): count} of the rtrace tables in @text: the
    rows under a header that ends in 'function'; '== group ==' lines split
    a table by test, thread or process.  Any other line ends the table.
    A name seen in several tables keeps every count it had."""
    rows, kind, group = {}, None, ""
    for line in text.split("\n"):
        m = re.match(r"^\s*(calls|allocs)\s.*\sfunction$", line)
        if m:
            kind, group = m.group(1), ""
            continue
        if kind is None or not line.strip():
            continue
        m = re.match(r"^== (.*) ==$", line)
        if m:
            group = m.group(1)
            continue
        m = re.match(r"^\s*(\d+)\s+\S", line)
        if not m:
            kind = None
            continue
        # a tree's drawing depends on the order of siblings, by time
        name = row_name(line.split()[1:]).lstrip("│├└─ ")
        rows.setdefault((kind, group, name), set()).add(int(m.group(1)))
    return rows


def run_block(path, lineno, lines, cwd, env):
    where = f"{os.path.relpath(path)}:{lineno}"
    cmds, pasted, want = [], [], 0
    for ln in lines:
        if ln.startswith("$ "):
            cmds.append(ln[2:])
        elif re.match(r"^# exit \d+$", ln):
            want = int(ln.split()[2])
        else:
            pasted.append(ln)
    output = ""
    for i, cmd in enumerate(cmds):
        r = subprocess.run(["sh", "-c", cmd], cwd=cwd, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=600)
        output += r.stdout
        expect = want if i == len(cmds) - 1 else 0
        if r.returncode != expect:
            fail(where, f"'{cmd}' exited {r.returncode}, not {expect}:\n" +
                 r.stdout[-2000:])
            return
    real = table_rows(output)
    for key, counts in table_rows("\n".join(pasted)).items():
        if key not in real:
            # which rows make the cut of --limit depends on the times
            if not re.search(r"more rows? \(--limit\)", output):
                fail(where, f"row {key} is not in the real output")
        elif not counts <= real[key]:
            fail(where, f"row {key}: the page says {sorted(counts)}, "
                 f"the run {sorted(real[key])}")


def check_transcripts(src, build, keep):
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    if not os.access(cargo, os.X_OK):
        print("SKIP transcripts: cargo is not installed")
        return
    work = tempfile.mkdtemp(prefix="docs-check-", dir=build)
    crate = os.path.join(work, "wordcount")
    shutil.copytree(os.path.join(src, "examples/wordcount"), crate,
                    ignore=shutil.ignore_patterns("target"))
    env = dict(os.environ, NO_COLOR="1", CARGO_TERM_COLOR="never",
               PATH=os.pathsep.join([build, os.path.dirname(cargo),
                                     os.environ.get("PATH", "")]))
    env.pop("CARGO_TARGET_DIR", None)
    wf = os.path.join(src, "docs/workflows")
    for name in sorted(os.listdir(wf)):
        if name.endswith(".md"):
            for lineno, lines in blocks(os.path.join(wf, name)):
                run_block(os.path.join(wf, name), lineno, lines, crate, env)
    if not keep:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--only",
                    help="options, layout, links, man or transcripts")
    ap.add_argument("--keep", action="store_true",
                    help="keep the crate the transcripts ran in")
    a = ap.parse_args()
    src, build = os.path.abspath(a.source), os.path.abspath(a.build)
    os.chdir(src)
    if a.only in (None, "options"):
        check_options(os.path.join(build, "rtrace"),
                      os.path.join(src, "docs/man/rtrace.md"))
        check_options(os.path.join(build, "cargo-rtrace"),
                      os.path.join(src, "docs/man/cargo-rtrace.md"))
        check_sub_options(os.path.join(build, "rtrace"), src)
    if a.only in (None, "layout"):
        check_layout(src)
    if a.only in (None, "links"):
        check_links(src)
    if a.only in (None, "man"):
        check_man(src, build)
    if a.only in (None, "transcripts"):
        check_transcripts(src, build, a.keep)
    for f in FAILS:
        print("NG " + f)
    print("docs: %s" % ("OK" if not FAILS else f"{len(FAILS)} problem(s)"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
