#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`rtrace report A B ...`: one table over several logs.

The hotloop fixture is recorded with two loop sizes; the fixture prints
the counts its construction gives (COUNT lines), and the merged report
must give their sums, row by row.  Views that cannot merge are refused
with one line and status 2.  Logs recorded in different modes merge in
the least of them (counts, or which functions ran), with a note.
"""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def record_mode(a, exe, mode, n):
    """A log recorded with @mode, and the counts the fixture printed."""
    log = os.path.join(a.build, f"merge{mode}.data")
    r = run([a.rtrace, "-q", mode, "-o", log, "-f", "hotloop::*",
             "--", exe, n])
    if r.returncode:
        sys.exit(f"recording {mode} failed:\n{r.stderr}")
    return log, driver.counts(r.stdout)


def mixed_modes(a, exe, logs, want):
    """Times + --count logs add their counts, with a note; adding a
    --coverage log leaves which functions ran, once per log."""
    fails = []
    count_log, counted = record_mode(a, exe, "--count", "10")
    cover_log, _ = record_mode(a, exe, "--coverage", "7")
    r = run([a.rtrace, "report", "--format", "json", *logs, count_log])
    rep = json.loads(r.stdout) if r.returncode == 0 else {}
    if rep.get("mode") != "count" or "--count" not in r.stderr:
        fails.append(f"times + count logs: status {r.returncode}, mode "
                     f"{rep.get('mode')}, stderr {r.stderr!r}")
    # counts only: the rows have no time at all
    got = {f["name"]: (f["calls"], f.get("total_ns"))
           for f in rep.get("functions", [])}
    for name, c in sorted(want.items()):
        c += counted.get(name, 0)
        if got.get(name) != (c, None):
            fails.append(f"times + count, {name}: {got.get(name)}, "
                         f"construction {c} calls and no time")
    r = run([a.rtrace, "report", "--format", "json", *logs, count_log,
             cover_log])
    rep = json.loads(r.stdout) if r.returncode == 0 else {}
    ran = {f["name"]: f["calls"] for f in rep.get("functions", [])}
    if rep.get("mode") != "coverage" or "--coverage" not in r.stderr or \
            set(ran.values()) != {4} or not want.keys() <= ran.keys():
        fails.append(f"four logs with a coverage one: mode "
                     f"{rep.get('mode')}, rows {ran}, stderr {r.stderr!r}")
    return fails


def main():
    a = driver.options()
    try:
        exe = driver.fixture(a, "hotloop", "1")
    except RuntimeError as e:
        sys.exit(str(e))

    fails = []
    want = {}
    logs = []
    for n, mode in (("1000", []), ("2500", [])):
        log = os.path.join(a.build, f"merge-{n}.data")
        r = run([a.rtrace, "-q", *mode, "-o", log, "-f", "hotloop::*",
                 "--", exe, n])
        if r.returncode:
            sys.exit(f"recording {n} failed:\n{r.stderr}")
        for name, c in driver.counts(r.stdout).items():
            want[name] = want.get(name, 0) + c
        logs.append(log)

    r = run([a.rtrace, "report", "--format", "json", *logs])
    got = {f["name"]: f["calls"] for f in json.loads(r.stdout)["functions"]}
    for name, c in sorted(want.items()):
        if got.get(name) != c:
            fails.append(f"{name}: merged calls {got.get(name)}, "
                         f"construction {c}")

    # the same log twice counts twice
    r = run([a.rtrace, "report", "--format", "json", logs[0], logs[0]])
    twice = {f["name"]: f["calls"] for f in json.loads(r.stdout)["functions"]}
    r0 = run([a.rtrace, "report", "--format", "json", logs[0]])
    once = {f["name"]: f["calls"] for f in json.loads(r0.stdout)["functions"]}
    if twice != {k: 2 * v for k, v in once.items()}:
        fails.append(f"a log twice: {twice}, once: {once}")

    # what does not merge says so in one line, status 2
    for args in (["--tree"], ["--graph", "hotloop::*"], ["--by", "thread"]):
        r = run([a.rtrace, "report", *args, *logs])
        if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1:
            fails.append(f"report {args} of two logs: status "
                         f"{r.returncode}, stderr {r.stderr!r}")
    fails += mixed_modes(a, exe, logs, want)
    for f in fails:
        print("NG " + f)
    print("merge: " + ("OK" if not fails else f"{len(fails)} problem(s)"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
