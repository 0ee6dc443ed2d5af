#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Each system interface rtrace wraps is used in its one place only.

    tests/lint/chokepoints.py [TOP]

Reads the C sources and headers under src/, include/ and arch/ (comments
and string literals left out) and fails, naming file and line, when:

  ptrace(                     is called outside src/tracer/tracee.c
  WIFEXITED, WTERMSIG, ...    read a wait status outside src/common/waitstatus.c
  capstone (cs_*, its header) is used outside arch/*/decode.c
  an x86-64 fact              appears outside arch/: EM_X86_64,
                              user_regs_struct, __builtin_ia32_*, rdtsc,
                              the int3 opcode 0xcc

so that ptrace's quirks, wait statuses, the disassembler and the CPU stay
behind the interfaces that own them (docs/how-it-works.md).  Exit 1 when
something is out of place, 0 otherwise.  Python 3 standard library only.
"""
import os
import re
import sys

RULES = [
    ("a ptrace call", re.compile(r"\bptrace\s*\("),
     lambda p: p == "src/tracer/tracee.c"),
    ("a wait-status macro",
     re.compile(r"\bW(IFEXITED|IFSIGNALED|IFSTOPPED|IFCONTINUED|EXITSTATUS|"
                r"TERMSIG|STOPSIG|COREDUMP)\b"),
     lambda p: p == "src/common/waitstatus.c"),
    ("capstone", re.compile(r"\bcs_[a-z_]+\s*\(|<capstone/"),
     lambda p: re.fullmatch(r"arch/[^/]+/decode\.c", p) is not None),
    ("an x86-64 fact",
     re.compile(r"\bEM_X86_64\b|\buser_regs_struct\b|\b__builtin_ia32_\w+|"
                r"\brdtsc\b|\b0x[cC][cC]\b"),
     lambda p: p.startswith("arch/")),
]

# comments and string or character literals, which may name anything
NOISE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'
                   r"'(?:\\.|[^'\\\n])*'", re.S)


def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


def sources(top):
    for d in ("src", "include", "arch"):
        for root, _, files in os.walk(os.path.join(top, d)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(root, f), top)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
    bad = 0
    for path in sources(top):
        with open(os.path.join(top, path), encoding="utf-8") as f:
            code = NOISE.sub(blank, f.read())
        for what, pattern, allowed in RULES:
            if allowed(path):
                continue
            for m in pattern.finditer(code):
                line = code.count("\n", 0, m.start()) + 1
                print("%s:%d: %s outside its choke point: %s"
                      % (path, line, what, m.group(0).strip()))
                bad += 1
    if bad:
        print("chokepoints: %d use%s out of place" % (bad, "" if bad == 1
                                                     else "s"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
