#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rtrace -l -v lists exactly the sites a run arms in the executable.

    imageplan.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

For several fixtures and option sets (none, --mem, --engine trap,
--stack, --count, --coverage, and a script whose `on` action makes a function stop at
every hit), the sites `rtrace -l -v` names in the executable (each
address, and whether it is a jump or a breakpoint) are compared with
those the run arms there, as --debug=probes prints them at arm time.
The two come from different places: the list from the plan alone, the
run's from what the tracer wrote into the process, at the load bias it
found.  Besides, with --mem the allocator shims and the entry hook must
be listed as probed for rtrace's own use, and with the script the
stopping function's sites must all be breakpoints.  Exit status 0 when
no check is NG.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
import runtest  # noqa: E402  (its list format)
from driver import row  # noqa: E402

# fixture, its arguments (a short run), a function a script makes stop
FIXTURES = [
    ("hotloop", ["1000"], "hotloop::leaf"),
    ("memprof", [], None),
    ("tailcalls", ["100", "20"], "tailcalls::cond_jumper"),
    ("inlined", ["100"], None),
    ("customalloc", [], None),
]
OPTION_SETS = [[], ["--mem"], ["--engine", "trap"], ["--stack", "4"],
               ["--count"], ["--coverage"]]

# "      jump at entry 0x144f0", "      hop at return 0x14505, relay at
# 0x14520", "      breakpoint at tail jump 0x1450a: needs a stop"
SITE = re.compile(r"^      (jump|hop|re-aimed branch|breakpoint) at "
                  r"(?:entry|return|tail jump) (0x[0-9a-f]+)")
JOINED = re.compile(r"with the return at (0x[0-9a-f]+)")
# "      inlined into main (...) at 0x14522: jump; ends at 0x14530: jump"
INLINED = re.compile(r"\b(at|ends at) (0x[0-9a-f]+): (jump|breakpoint)")
ARMED = re.compile(r"^rtrace: probes: armed (\S+) (0x[0-9a-f]+) "
                   r"(?:entry|return|tail jump|inlined) (jump|breakpoint): ")


def run(cmd, cwd=None):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                          cwd=cwd)


def listed(text):
    """{address: "jump" | "breakpoint"} of the sites an -l -v lists, and
    the names listed as probed for rtrace's own use with their use."""
    sites, own, func, in_own = {}, {}, None, False
    for line in text.splitlines():
        if line.startswith("probed for rtrace's own use"):
            in_own = True
        elif runtest.LIST_FUNC.match(line):
            func = runtest.LIST_FUNC.match(line).group(1)
        m = SITE.match(line)
        if m:
            how = "breakpoint" if m.group(1) == "breakpoint" else "jump"
            sites[int(m.group(2), 16)] = how
        for m in JOINED.finditer(line):
            sites[int(m.group(1), 16)] = "jump"
        if "inlined into" in line:
            for m in INLINED.finditer(line):
                sites[int(m.group(2), 16)] = m.group(3)
        if in_own and func and line.startswith("      probed for rtrace: "):
            own[func] = line.split(": ", 1)[1]
    return sites, own


def armed(text, exe):
    """{address: "jump" | "breakpoint"} of the sites armed in @exe."""
    out = {}
    for line in text.splitlines():
        m = ARMED.match(line)
        if m and os.path.realpath(m.group(1)) == os.path.realpath(exe):
            out[int(m.group(2), 16)] = m.group(3)
    return out


def diff(a, b):
    """What differs between two site maps, shortly."""
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    how = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    return "listed only: %s; armed only: %s; not alike: %s" % (
        [hex(k) for k in only_a[:5]], [hex(k) for k in only_b[:5]],
        ["%#x %s/%s" % (k, a[k], b[k]) for k in how[:5]])


def compare(label, lst, run_r, exe):
    sites, own = listed(lst.stdout)
    got = armed(run_r.stderr, exe)
    row(label + ": -l -v and the run agree",
        lst.returncode == 0 and run_r.returncode == 0 and sites and
        sites == got, diff(sites, got) if sites != got else
        "%d sites" % len(sites))
    return sites, own


def check_options(opts, fixture, exe, args, tmp):
    for extra in OPTION_SETS:
        label = "%s %s" % (fixture, " ".join(extra) or "(default)")
        pat = ["-f", fixture + "::*"]
        lst = run([opts.rtrace, "-l", "-v"] + pat + extra + ["--", exe])
        r = run([opts.rtrace, "record", "-q", "--debug=probes", "-o",
                 os.path.join(tmp, "run.rtrace")] + pat + extra +
                ["--", exe] + args)
        _, own = compare(label, lst, r, exe)
        if extra == ["--mem"]:
            alloc = [f for f, use in own.items() if use == "allocator"]
            row(label + ": the allocator listed for rtrace's own use",
                any("__rust_alloc" in f for f in alloc), own)
        if not extra:
            row(label + ": the entry hook listed for rtrace's own use",
                "library hook" in own.values(), own)


def check_stop(opts, fixture, exe, args, func, tmp):
    """A script's `on` action: its function's hits must all stop."""
    script = os.path.join(tmp, "s.rtx")
    with open(script, "w") as f:
        f.write("file %s\nargs %s\n" % (exe, " ".join(args)))
        f.write("on %s entry do count n\nrun\n" % func)
    with open(script + ".l", "w") as f:
        f.write("set list on\nset verbose on\n")
        f.write(open(script).read())
    lst = run([opts.rtrace, "-x", script + ".l"])
    r = run([opts.rtrace, "--debug=probes", "-x", script])
    label = "%s on %s" % (fixture, func)
    sites, _ = compare(label, lst, r, exe)
    nm = run(["nm", "-S", "-C", "--defined-only", exe]).stdout
    lo = hi = None
    for line in nm.splitlines():
        p = line.split(None, 3)
        if len(p) == 4 and re.sub(r"::h[0-9a-f]{16}$", "", p[3]) == func:
            lo, hi = int(p[0], 16), int(p[0], 16) + int(p[1], 16)
    mine = {a: h for a, h in sites.items() if lo is not None and lo <= a < hi}
    row(label + ": its sites are breakpoints",
        mine and set(mine.values()) == {"breakpoint"},
        {hex(a): h for a, h in mine.items()})


def body(opts, exe, tmp):
    for fixture, args, func in FIXTURES:
        b = driver.Build("3", False)
        driver.build_fixture(opts, fixture, b)
        if b.error:
            row("build %s -O3" % fixture, False, b.error)
            continue
        check_options(opts, fixture, b.exe, args, tmp)
        if func:
            check_stop(opts, fixture, b.exe, args, func, tmp)


if __name__ == "__main__":
    sys.exit(driver.side_main(__doc__, "hotloop", body, opt="3",
                              with_opts=True))
