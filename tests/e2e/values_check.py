#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Typed `print` in a session shows what the program was called with.

    values_check.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

The fixture tests/fixtures/values.rs calls each of its functions once with
fixed inputs, and each function prints, with its own {:?}, the arguments it
was called with (VALUE <function> <name> <value>) and what it returns
(RETVAL <function> <value>), in the format docs/commands.md gives for
rtrace's `print`.  A session breaks on every function, runs `print args`,
`finish` and `print retval` at each stop.  At -O0 and -O3, for each
function:

  * rtrace prints every argument the program printed, under its name, with
    the type the fixture declares (for the scalars, listed below), and the
    same value as the program in the same run (addresses included);
  * `print retval` shows the value the program says it returns;
  * `print arg0` at Parser::parse_line is the address `print self` shows:
    the registers stay available beside the names;
  * without stopping, `on values::wide entry do print args` and `on
    values::shapes exit do print retval` print the same values, each line
    after the function's name and entry or exit.

`<optimised out>` passes only at -O3 and only for an argument that has no
DW_AT_location at all in the function's DWARF (readelf --debug-dump=info):
at rustc 1.95 that is refs's `t`, a reference to a constant that the
optimiser folded.  `<not stored yet>` never passes: big's 64 KiB frame
makes its prologue probe the stack in a loop before it stores the
arguments, and refs's `n` is, at -O3, the entry value of rdi where the
prologue's run stops.  Exit status 0 when no check is NG.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from driver import row  # noqa: E402

FUNCS = ["ints", "wide", "floats", "third", "flags", "text", "seq", "shapes", "point", "line", "big",
         "refs",
         "Parser::parse_line"]

# the types the fixture's signatures give its scalar arguments
TYPES = {
    ("ints", "a"): "i8", ("ints", "b"): "u8", ("ints", "c"): "i16",
    ("ints", "d"): "u16", ("ints", "e"): "i32", ("ints", "f"): "u32",
    ("ints", "g"): "i64", ("ints", "h"): "u64", ("wide", "a"): "i128",
    ("wide", "b"): "u128", ("wide", "c"): "isize", ("wide", "d"): "usize",
    ("floats", "a"): "f32", ("floats", "b"): "f64", ("floats", "c"): "f64",
    ("floats", "d"): "f32", ("floats", "e"): "f64", ("third", "x"): "f32",
    ("flags", "yes"): "bool", ("flags", "c"): "char", ("text", "s"): "&str",
    ("text", "owned"): "String", ("seq", "v"): "&[u32]",
    ("seq", "empty"): "&[u8]", ("refs", "n"): "&u64",
    ("refs", "m"): "&mut i32", ("Parser::parse_line", "line"): "&str",
}

def script():
    lines = ["trace values::*", "on values::wide entry do print args",
             "on values::shapes exit do print retval"]
    lines += ["break values::%s" % f for f in FUNCS]
    lines.append("run")
    for f in FUNCS:
        lines.append("print args")
        if f == "Parser::parse_line":
            lines.append("print arg0")
        lines += ["finish", "print retval", "continue"]
    return "\n".join(lines) + "\n"


STOP = re.compile(r"^stopped at values::(\S+) (entry|exit) ")
ACTION = re.compile(r"^values::(\S+) (?:entry|exit): (\w+): .*? = (.*)$")
TYPED = re.compile(r"^(\w+): (.*?) = (.*)$")


def parse(out):
    """The program's values and rtrace's, from one run's stdout."""
    prog, shown, types, where = {}, {}, {}, None
    for line in out.splitlines():
        m = ACTION.match(line)
        if m:
            shown[("on " + m.group(1), m.group(2))] = m.group(3)
            continue
        m = STOP.match(line)
        if m:
            where = m.group(1)
            continue
        parts = line.split(" ", 3)
        if parts[0] == "VALUE" and len(parts) == 4:
            prog[(parts[1][len("values::"):], parts[2])] = parts[3]
            continue
        if parts[0] == "RETVAL" and len(parts) >= 3:
            prog[(parts[1][len("values::"):], "retval")] = line.split(" ", 2)[2]
            continue
        m = TYPED.match(line)
        if m and where:
            shown[(where, m.group(1))] = m.group(3)
            types[(where, m.group(1))] = m.group(2)
        elif line.startswith("arg0 = ") and where:
            shown[(where, "arg0")] = line.split("(")[-1].rstrip(")")
    return prog, shown, types


def without_location(exe):
    """(function, argument) pairs whose DWARF has no DW_AT_location."""
    out = subprocess.run(["readelf", "--debug-dump=info", exe],
                         capture_output=True, text=True).stdout
    found, fn, fn_depth, param, has_loc = set(), None, None, None, False

    def close():
        if fn and param and not has_loc:
            found.add((fn, param))

    for line in out.splitlines():
        m = re.match(r"\s*<(\d+)><[0-9a-f]+>: Abbrev Number: \d+ \((\w+)\)", line)
        if m:
            close()
            depth, tag = int(m.group(1)), m.group(2)
            param, has_loc = None, False
            if tag == "DW_TAG_subprogram":
                fn, fn_depth = None, depth
            elif fn_depth is not None and depth <= fn_depth:
                fn = None
            if tag == "DW_TAG_formal_parameter" and depth == (fn_depth or 0) + 1:
                param = ""
            continue
        if "DW_AT_linkage_name" in line and param is None:
            for f in FUNCS:
                tail = f.split("::")[-1]
                if "%d%s17h" % (len(tail), tail) in line:
                    fn = f
        elif "DW_AT_name" in line and param == "":
            param = line.rsplit(": ", 1)[-1].strip()
        elif "DW_AT_location" in line and param is not None:
            has_loc = True
    close()
    return found


def check(exe, opt, tmp):
    path = os.path.join(tmp, "values.rtx")
    with open(path, "w", encoding="utf-8") as f:
        f.write(script())
    r = subprocess.run([ARGS.rtrace, "-x", path, "--", exe], capture_output=True,
                       text=True, timeout=120, cwd=tmp)
    tag = "O%s " % opt
    row(tag + "session exits 0", r.returncode == 0, r.stderr.strip()[-300:])
    prog, shown, types = parse(r.stdout)
    row(tag + "the program printed its values", len(prog) >= 30, "%d" % len(prog))
    gone = without_location(exe) if opt != "0" else set()
    for (f, name), want in sorted(prog.items()):
        got = shown.get((f, name))
        ok = got == want
        note = ""
        if got == "<optimised out>" and (f, name) in gone:
            ok, note = True, " (no DW_AT_location in the DWARF)"
        row("%s%s %s" % (tag, f, name), ok,
            "rtrace %r, program %r%s" % (got, want, note))
    for key, want in sorted(TYPES.items()):
        row("%s%s %s: %s" % (tag, key[0], key[1], want), types.get(key) == want,
            "rtrace %r" % types.get(key))
    for (f, name), want in sorted(prog.items()):
        if f in ("wide", "shapes") and (name == "retval") == (f == "shapes"):
            got = shown.get(("on " + f, name))
            row("%son %s %s" % (tag, f, name), got == want,
                "rtrace %r, program %r" % (got, want))
    self_addr = shown.get(("Parser::parse_line", "self"))
    row(tag + "print arg0 is self's address", self_addr is not None and
        shown.get(("Parser::parse_line", "arg0")) == self_addr,
        "arg0 %r, self %r" % (shown.get(("Parser::parse_line", "arg0")), self_addr))


def main():
    global ARGS
    ARGS = driver.options()
    for opt in ("0", "3"):
        with tempfile.TemporaryDirectory(prefix="rtrace-values.") as tmp:
            check(driver.fixture(ARGS, "values", opt), opt, tmp)
    return driver.finish()


if __name__ == "__main__":
    sys.exit(main())
