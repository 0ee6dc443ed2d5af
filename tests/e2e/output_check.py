#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Small things the outputs must get right, on the inlined fixture.

    output_check.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

tests/fixtures/inlined.rs at -O3: most of its functions exist only as
inlined instances, and is_small, weigh, classify, pong and the closure
are entered N, 2N, N, ... times (its header) with no end of theirs
probed at -O3 for some: their calls have no time.

  engine     --engine jump and --engine inline (the old name) record the
             same counts and patch the same sites, and -l prints the same
             with both; --engine bogus is a usage error: exit 2, one line
             on stderr that names jump, inline and trap
  sites      the --stats line and the report's last line count the same
             sites: "jump probes: P of S function sites patched" in both
  diff       rtrace diff of two runs: a function none of whose calls has a
             time in a run (timed_calls 0 in that run's JSON report) shows
             "-" for that run's self time and for the changes, null in
             JSON, an empty field in CSV; never "0 ns"
  count      a --count run's CSV has only the columns the mode recorded,
             the same as the keys of its JSON rows: no times, no
             timed_calls
  legend     the "[N inlined, S sites]" legend is under a table only when
             a row of it has inlined calls
  plural     "1 hit", "1 event", "1 function": no "1 hits" in the summary
             or in --stats
  biglog     a whole log over 100 MiB (hotloop, 7 million calls: some
             120 MiB) gets a line with its size (the file's) and the two
             ways to a smaller one, --keep=none and --keep=SIZE; the same
             run with --keep=none, and a small log, get no such line

Exit status 0 when no check is NG.
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from driver import calls_by_name, row  # noqa: E402

ARGS = None


def rtrace(*argv, check=True):
    r = subprocess.run([ARGS.rtrace] + list(argv), capture_output=True,
                       text=True, timeout=120)
    if check and r.returncode:
        raise RuntimeError("rtrace %s: exit %d: %s" % (" ".join(argv),
                                                       r.returncode, r.stderr))
    return r


def record(exe, log, n, *extra):
    return rtrace("record", "-o", log, "-f", "inlined::*", *extra, "--",
                  exe, str(n))


def report_json(log, *extra):
    return json.loads(rtrace("report", "--format", "json", *extra, log).stdout)


def check_engine(exe, tmp):
    reps, lists = {}, {}
    for name in ("jump", "inline"):
        log = os.path.join(tmp, "engine-%s.data" % name)
        record(exe, log, 100, "--engine", name)
        reps[name] = report_json(log)
        lists[name] = rtrace("-l", "-f", "inlined::*", "--engine", name,
                             exe).stdout
    a, b = reps["jump"], reps["inline"]
    row("engine: jump and inline record the same counts",
        calls_by_name(a) == calls_by_name(b) and a["functions"],
        "%d functions" % len(a["functions"]))
    row("engine: jump and inline patch the same sites",
        (a["sites"], a["jump_sites"]) == (b["sites"], b["jump_sites"])
        and a["jump_sites"] > 0, "%d of %d" % (a["jump_sites"], a["sites"]))
    row("engine: -l prints the same with jump and inline",
        lists["jump"] == lists["inline"] and " jump " in lists["jump"])
    r = rtrace("--engine", "bogus", "-f", "inlined::*", exe, check=False)
    lines = r.stderr.splitlines()
    row("engine: a bad name is a usage error (exit 2, one line)",
        r.returncode == 2 and len(lines) == 1 and
        all(w in r.stderr for w in ("jump", "inline", "trap", "bogus"))
        and not r.stdout, "exit %d: %r" % (r.returncode, r.stderr))


SITES = re.compile(r"jump probes: (\d[\d,]*) of (\d[\d,]*) function sites")


def check_sites(exe, tmp):
    log = os.path.join(tmp, "stats.data")
    r = record(exe, log, 100, "--stats")
    stats = SITES.search(r.stderr)
    text = rtrace("report", log).stdout
    last = SITES.search(text)
    row("sites: --stats and the report count the same sites",
        stats and last and stats.groups() == last.groups(),
        "stats %s, report %s" % (stats and stats.groups(),
                                 last and last.groups()))


def diff_rows(text):
    """{name: fields} of the rows of rtrace diff's table."""
    rows, on = {}, False
    for line in text.splitlines():
        if line.lstrip().startswith("calls old"):
            on = True
            continue
        if on and not line.strip():
            break
        if on:
            f = line.split()
            rows[f[-1]] = f
    return rows


def check_diff(exe, tmp):
    old, new = os.path.join(tmp, "old.data"), os.path.join(tmp, "new.data")
    record(exe, old, 100)
    record(exe, new, 200)
    untimed = sorted(f["name"] for f in report_json(old)["functions"]
                     if f["timed_calls"] == 0 and f["calls"])
    row("diff: the fixture has untimed rows at -O3", untimed,
        ", ".join(untimed))
    text = rtrace("diff", old, new).stdout
    rows = diff_rows(text)
    bad = [n for n in untimed if n not in rows or "ns" in rows[n][3:] or
           rows[n][3:8] != ["-"] * 5]
    row("diff: untimed rows show - for times and changes", not bad,
        "; ".join(" ".join(rows.get(n, [n, "missing"])) for n in bad))
    js = {f["name"]: f for f in json.loads(
        rtrace("diff", "--format", "json", old, new).stdout)["functions"]}
    bad = [n for n in untimed
           if js[n]["old"]["self_ns"] is not None or
           js[n]["change"]["self_ns"] is not None or
           js[n]["change"]["total_ns"] is not None]
    row("diff: untimed rows are null in JSON", not bad, ", ".join(bad))
    cv = {r["name"]: r for r in csv.DictReader(io.StringIO(
        rtrace("diff", "--format", "csv", old, new).stdout))}
    bad = [n for n in untimed if cv[n]["self_ns_old"] != "" or
           cv[n]["total_ns_old"] != ""]
    row("diff: untimed rows are empty fields in CSV", not bad, ", ".join(bad))


def check_count(exe, tmp):
    log = os.path.join(tmp, "count.data")
    record(exe, log, 100, "--count")
    header = next(csv.reader(io.StringIO(
        rtrace("report", "--format", "csv", log).stdout)))
    keys = list(report_json(log)["functions"][0].keys())
    timeish = [c for c in header if c.endswith("_ns") or c.endswith("_pct")
               or c == "timed_calls"]
    row("count: the CSV has no time columns", not timeish, ",".join(header))
    row("count: the CSV's columns are the JSON rows' keys",
        header == keys, "csv %s; json %s" % (header, keys))


LEGEND = "[N inlined, S sites]"


def check_legend(exe, tmp):
    log = os.path.join(tmp, "legend.data")
    record(exe, log, 100)
    rep = report_json(log)
    plain = [f["name"] for f in rep["functions"] if not f["inlined_calls"]]
    inl = [f["name"] for f in rep["functions"] if f["inlined_calls"]]
    row("legend: the fixture has rows with and without inlined calls",
        plain and inl, "%d and %d" % (len(plain), len(inl)))
    if not (plain and inl):
        return
    text = rtrace("report", "-f", plain[0], log).stdout
    row("legend: not under a table with no inlined row (%s)" % plain[0],
        LEGEND not in text)
    text = rtrace("report", "-f", inl[0], log).stdout
    row("legend: under a table with an inlined row (%s)" % inl[0],
        LEGEND in text)


ONE = re.compile(r"\b1 (probe |ptrace |system |selected |inlined )?(hits|"
                 r"events|functions|threads|stops|calls|sites|instances|"
                 r"probes)\b")


def check_plural(exe, tmp):
    # main runs once: with --count, one entry, one hit
    log = os.path.join(tmp, "one.data")
    r = rtrace("record", "--count", "--stats", "-o", log, "-f",
               "inlined::main", "--no-inlined", "--", exe, "1")
    summary = [ln for ln in r.stderr.splitlines() if "traced 1 function" in ln]
    row("plural: the summary says '1 hit'", summary and
        " 1 hit," in summary[0], summary and summary[0])
    bad = [ln for ln in r.stderr.splitlines() if ONE.search(ln)]
    row("plural: no '1 <plural>' on stderr", not bad, " | ".join(bad))


BIG = re.compile(r"^rtrace: the log is ([0-9.]+) MiB: --keep=none .*"
                 r"--keep=64M keeps the last 64 MiB", re.M)


def check_biglog(exe, tmp):
    hot = driver.fixture(ARGS, "hotloop", "3")
    log = os.path.join(tmp, "big.data")
    calls = 7000000
    r = rtrace("record", "-o", log, "-f", "hotloop::*", "--", hot,
               str(calls))
    m = BIG.search(r.stderr)
    size = os.path.getsize(log) / 2**20
    row("biglog: a %.0f MiB log is said, with --keep=none and --keep=SIZE"
        % size, size > 100 and m and abs(float(m.group(1)) - size) < 0.1,
        r.stderr[-400:])
    os.unlink(log)
    r = rtrace("record", "--keep=none", "-o", log, "-f", "hotloop::*",
               "--", hot, str(calls))
    row("biglog: not with --keep=none", not BIG.search(r.stderr),
        r.stderr[-400:])
    r = rtrace("record", "-o", log, "-f", "hotloop::*", "--", hot, "1000")
    row("biglog: not for a small log", not BIG.search(r.stderr),
        r.stderr[-400:])


def main():
    global ARGS
    ARGS = driver.options()
    exe = driver.fixture(ARGS, "inlined", "3")
    with tempfile.TemporaryDirectory(prefix="rtrace-output.") as tmp:
        for check in (check_engine, check_sites, check_diff, check_count,
                      check_legend, check_plural, check_biglog):
            try:
                check(exe, tmp)
            except (RuntimeError, KeyError, ValueError, StopIteration) as e:
                row("%s: ran to its end" % check.__name__, False, str(e))
    return driver.finish()


if __name__ == "__main__":
    sys.exit(main())
