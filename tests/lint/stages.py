#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The include graph between the pipeline's stage folders runs one way.

    tests/lint/stages.py [TOP]

Every C file under src/STAGE/ belongs to STAGE, arch/ is the CPU's layer,
and a header include/rtrace/NAME.h belongs to the stage of the file that
implements it (src/*/NAME.c), or to the stage HEADER_STAGE names for
headers with no file of their own.  An #include of "rtrace/NAME.h" from a
file of stage A is an edge A -> stage(NAME); the check fails, naming file
and header, on any edge that ALLOWED does not list, so that the report
and the outputs never reach into the tracer, and no two stages include
each other (docs/how-it-works.md, "The layout").  Exit 1 when an edge is
out of place or a header has no stage, 0 otherwise.  Python 3 standard
library only.
"""
import os
import re
import sys

# What each stage may include besides itself: the pipeline's order.
ALLOWED = {
    "common": set(),
    "arch": {"common"},
    "selection": {"common", "arch"},
    "log": {"common"},
    "probes": {"common", "arch", "selection", "log"},
    "tracer": {"common", "arch", "selection", "log", "probes"},
    "report": {"common", "selection", "log", "probes"},
    "output": {"common", "selection", "log", "probes", "report"},
    "front": {"common", "arch", "selection", "log", "probes", "tracer",
              "report", "output"},
}

# Headers that no .c file of the same name implements.
HEADER_STAGE = {
    "arch": "arch", "arch-jump": "arch", "archreg": "arch",
    "inline-layout": "arch", "trapguard-layout": "arch",
    "compiler": "common", "exit": "common", "raddr": "common",
    "vec": "common",
    "arm": "tracer",
    "render": "output",
    "hooks": "front", "script": "front", "values": "front",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"rtrace/([\w-]+)\.h"', re.M)


def files(top, d):
    for root, _, names in os.walk(os.path.join(top, d)):
        for f in sorted(names):
            if f.endswith((".c", ".h", ".S")):
                yield os.path.relpath(os.path.join(root, f), top)


def stage_of_path(path, header_stage):
    parts = path.split(os.sep)
    if parts[0] == "src":
        return parts[1] if len(parts) > 2 else None
    if parts[0] == "arch":
        return "arch"
    if parts[0] == "include":
        return header_stage.get(os.path.basename(path)[:-2])
    return None


def header_stages(top):
    stages = dict(HEADER_STAGE)
    for path in files(top, "src"):
        if path.endswith(".c"):
            stages.setdefault(os.path.basename(path)[:-2], path.split(os.sep)[1])
    return stages


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
    header_stage = header_stages(top)
    bad = 0
    for d in ("src", "include", "arch"):
        for path in files(top, d):
            src = stage_of_path(path, header_stage)
            if src is None:
                print("%s: belongs to no stage: add it to HEADER_STAGE in %s"
                      % (path, os.path.relpath(__file__, top)))
                bad += 1
                continue
            with open(os.path.join(top, path), encoding="utf-8") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                dst = header_stage.get(m.group(1))
                if dst is None:
                    print("%s: rtrace/%s.h belongs to no stage"
                          % (path, m.group(1)))
                    bad += 1
                elif dst != src and dst not in ALLOWED[src]:
                    line = text.count("\n", 0, m.start()) + 1
                    print("%s:%d: %s includes rtrace/%s.h of stage %s"
                          % (path, line, src, m.group(1), dst))
                    bad += 1
    if bad:
        print("stages: %d include%s against the pipeline's order"
              % (bad, "" if bad == 1 else "s"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
