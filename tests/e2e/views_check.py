#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The views of real recordings, checked against the report.

    views_check.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

Records a few fixtures (threads, deep and mutual recursion, panics that
unwind, tail calls), then checks every view of each log against
`rtrace report --format json` of the same log:

  chrome     every call is one complete event ("ph": "X") with pid, tid,
             ts, dur and args; calls per name equal the report's; per
             thread the events nest (none overlaps another without
             containing it) and no two start together; the args' total_ns
             of the calls not flagged recursive (no activation of the same
             function encloses them) add up to the report's total, and
             self_ns to its self; unwound calls are flagged; every thread
             with calls has a thread_name event and every process a
             process_name
  chrome raw with --raw-times (export and report): each event's dur is its
             total_ns exactly, so durations add up to the report's totals
  folded     the weights of the stacks that end in a function add up to
             its self time in the report (--weight calls: to its calls)
  tree       per name, the calls and self times of the contexts add up to
             the report's
  graph      per function (--graph '*'), its callers' calls and times add
             up to its calls and total
  replay     one line per call ("f() {" or "f();") and the "}" lines close
             as many
  live       `rtrace --tree --export chrome:F --export folded:F ...` (the
             first case): the tree replaces the table on stderr, and the
             files hold what `rtrace export` makes of the run's log
  damaged    the log of the recursion case with one entry's function id
             set to 0xE3000000, and with a malformed FUNCS block: tree,
             replay, every export, --graph, --mem, --stacks and the table
             end with status 0 or 2, one error line at most, under a
             1 GiB address-space limit
  diff       `rtrace diff` of hotloop run with N = 3,000 and 8,000: each
             side's calls, totals and self times are the report's of its
             log, the changes are new minus old, leaf's calls are 3,000 and
             8,000 (N, by construction), rows come largest change in self
             time first; against a run tracing hotloop::leaf only, outer
             and middle are "gone"; one log alone is refused in one line
  deep       deeprec recursing 40,000 deep: tree, replay, the html and
             folded exports write less than 64 MB each (an indentation
             per level made gigabytes)
  shares     busywait (K parents, each 1 ms of its own around two 2 ms
             leaves): each row's % of total and self is its time over the
             run's wall_ns; leaf's total share plus parent's self share is
             parent's total share (leaf is its only traced callee);
             parent's self share over its total share is what the
             program's own clock says its spins took (TIME line), within
             15 % (inline engine); CSV, text and HTML show the same shares and marks, and
             the HTML every note line of the text report
  blocked    blocking (a sleep, a scope's join, a pipe's read, a spin):
             every timed JSON row has blocked_ns and blocked_pct, the
             sleeper's 5 x 20 ms sleeps are blocked time at least; CSV
             and the HTML table's blocked column hold the JSON's figures,
             the text table a blocked column and the sleeper's B mark,
             the SVG [blocked] frames; with --no-blocked no row has
             blocked time, and the calls are the same.  (folded and
             tree, above, also check that [blocked] frames add up to
             each function's blocked time)
  marks      busywait's ms-long calls are never marked too short, nor,
             recorded in the program, compensated; stops exactly when the
             report lists them as stopped (--engine trap: every row); a
             row is compensated exactly when its total with --raw-times
             less its total is more than its total (busywait, and
             tinyfuncs' few-instruction functions under --engine trap,
             where every row has stops)

Prints one row per check, OK / NG / SKIP, and exits 1 if any is NG.
Python 3 standard library only.
"""

import collections
import resource
import struct
import decimal
import json
import os
import shutil
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402

# fixture, args, opt level: small runs, each a different shape of calls
CASES = [
    ("threads", ["2000", "200"], "3"),      # 9 threads at once
    ("recursion", ["300", "101", "12"], "0"),  # 301 deep, mutual, tree
    ("panics", ["5", "2", "4"], "0"),       # frames left by unwinding
    ("tailcalls", ["300", "20"], "3"),      # frames handed on by jmp
    ("blocking", [], "3"),                  # sleeps, joins, reads
]


class Table:
    def __init__(self):
        self.ng = 0

    def row(self, case, check, ok, expected="", got="", detail=None):
        res = {True: "OK", False: "NG", None: "SKIP"}[ok]
        self.ng += ok is False
        line = "%-12s %-46s %-4s  %-24s %s" % (case, check, res, _clip(expected),
                                                _clip(got))
        print(line.rstrip(), flush=True)
        if detail and ok is False:
            for d in str(detail).splitlines()[:20]:
                print("    | " + d, flush=True)


def _clip(v, n=40):
    s = str(v)
    return s if len(s) <= n else s[: n - 3] + "..."


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=600, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s" % (" ".join(cmd), p.returncode,
                                                p.stderr.decode(errors="replace")))
    return p.stdout


def rtrace(opts, *args):
    return run([opts.rtrace] + list(args))


# ---- the report: the reference --------------------------------------------

def report(opts, log, *extra):
    rep = json.loads(rtrace(opts, "report", "--format", "json", *extra, log))
    rows = collections.defaultdict(lambda: collections.Counter())
    for f in rep["functions"]:
        for k in ("calls", "total_ns", "self_ns", "unwound", "blocked_ns"):
            # null: none of its calls has a time (inlined, end not
            # probed), which the other views show as 0
            rows[f["name"]][k] += f[k] or 0
    return rows


def compare(t, case, check, want, got):
    """want/got: {name: number}; zeros left out."""
    want = {k: v for k, v in want.items() if v}
    got = {k: v for k, v in got.items() if v}
    bad = ["%s: want %s, got %s" % (n, want.get(n, 0), got.get(n, 0))
           for n in sorted(set(want) | set(got)) if want.get(n, 0) != got.get(n, 0)]
    t.row(case, check, not bad, "%d functions" % len(want),
          "%d differ" % len(bad) if bad else "all equal", "\n".join(bad))


# ---- chrome --------------------------------------------------------------

def ns(v):
    """A JSON number of microseconds (parsed as Decimal) in ns, exactly."""
    return int(v * 1000)


def chrome_events(opts, log, *extra):
    text = rtrace(opts, "export", "--format", "chrome", *extra, log)
    doc = json.loads(text, parse_float=decimal.Decimal)
    return doc["traceEvents"]


def nest(events):
    """Per thread, the events in nesting order, each with its enclosing
    events' names; returns (overlaps, [(event, ancestor names)])."""
    by_thread = collections.defaultdict(list)
    for e in events:
        by_thread[(e["pid"], e["tid"])].append(e)
    overlaps, out = [], []
    for evs in by_thread.values():
        evs.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
        stack = []
        for e in evs:
            start, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
            while stack and stack[-1][1] <= start:
                stack.pop()  # ended before this one starts
            if stack and end > stack[-1][1]:
                overlaps.append("%s [%d, %d] overlaps %s [%d, %d]" % (
                    e["name"], start, end, stack[-1][2], stack[-1][0], stack[-1][1]))
            out.append((e, [s[2] for s in stack]))
            stack.append((start, end, e["name"]))
    return overlaps, out


def check_chrome(t, case, opts, log, rep):
    events = chrome_events(opts, log)
    calls = [e for e in events if e.get("ph") == "X"]
    meta = [e for e in events if e.get("ph") == "M"]
    keys = ("name", "ts", "dur", "pid", "tid", "args")
    bad = [e for e in calls if any(k not in e for k in keys)
           or "total_ns" not in e["args"] or "self_ns" not in e["args"]]
    t.row(case, "chrome: complete events with their fields", not bad,
          "all", "%d of %d lack some" % (len(bad), len(calls)), bad[:3])
    if len(calls) + len(meta) != len(events):
        t.row(case, "chrome: only X and M events", False, len(events),
              len(calls) + len(meta))
    compare(t, case, "chrome: one event per call",
            {n: r["calls"] for n, r in rep.items()},
            collections.Counter(e["name"] for e in calls))
    overlaps, nested = nest(calls)
    t.row(case, "chrome: events nest on each thread", not overlaps, "no overlap",
          "%d overlaps" % len(overlaps), "\n".join(overlaps[:10]))
    starts = collections.Counter((e["pid"], e["tid"], e["ts"]) for e in calls)
    same = [k for k, n in starts.items() if n > 1]
    t.row(case, "chrome: no two calls of a thread start together", not same,
          "0", len(same), same[:5])
    total, self_, unwound = (collections.Counter() for _ in range(3))
    for e, above in nested:
        if not e["args"].get("recursive"):
            total[e["name"]] += e["args"]["total_ns"]
        self_[e["name"]] += e["args"]["self_ns"]
        unwound[e["name"]] += bool(e["args"].get("unwound"))
    compare(t, case, "chrome: outermost total_ns = report total",
            {n: r["total_ns"] for n, r in rep.items()}, total)
    compare(t, case, "chrome: self_ns = report self",
            {n: r["self_ns"] for n, r in rep.items()}, self_)
    compare(t, case, "chrome: unwound flags = report unwound",
            {n: r["unwound"] for n, r in rep.items()}, unwound)
    threads = {(e["pid"], e["tid"]) for e in calls}
    named = {(e["pid"], e.get("tid")) for e in meta if e["name"] == "thread_name"}
    procs = {e["pid"] for e in meta if e["name"] == "process_name"}
    t.row(case, "chrome: every thread and process named",
          threads <= named and {p for p, _ in threads} <= procs,
          "%d threads" % len(threads),
          "%d unnamed" % len(threads - named))


def check_chrome_raw(t, case, opts, log):
    rep = report(opts, log, "--raw-times")
    calls = [e for e in chrome_events(opts, log, "--raw-times") if e["ph"] == "X"]
    bad = ["%s: dur %s, total_ns %s" % (e["name"], e["dur"], e["args"]["total_ns"])
           for e in calls if ns(e["dur"]) != e["args"]["total_ns"]]
    t.row(case, "chrome --raw-times: dur = total_ns", not bad,
          "%d events" % len(calls), "%d differ" % len(bad), "\n".join(bad[:10]))
    total = collections.Counter()
    for e in calls:
        if not e["args"].get("recursive"):
            total[e["name"]] += ns(e["dur"])
    compare(t, case, "chrome --raw-times: durations = report total",
            {n: r["total_ns"] for n, r in rep.items()}, total)


# ---- the aggregated views -------------------------------------------------

BLOCKED = "[blocked]"


def folded(opts, log, *extra):
    """Weights of the stacks by their last frame; a [blocked] frame's
    by the function below it, apart."""
    sums, blocked = collections.Counter(), collections.Counter()
    for line in rtrace(opts, "export", "--format", "folded", *extra,
                       log).decode().splitlines():
        stack, w = line.rsplit(" ", 1)
        frames = stack.split(";")
        if frames[-1] == BLOCKED:
            blocked[frames[-2]] += int(w)
        else:
            sums[frames[-1]] += int(w)
    return (sums, blocked) if not extra else sums


def check_folded(t, case, opts, log, rep):
    own, blocked = folded(opts, log)
    compare(t, case, "folded: stacks = report self",
            {n: r["self_ns"] for n, r in rep.items()}, own)
    compare(t, case, "folded: [blocked] frames = report blocked",
            {n: r["blocked_ns"] for n, r in rep.items()}, blocked)
    compare(t, case, "folded --weight calls: stacks = report calls",
            {n: r["calls"] for n, r in rep.items()},
            folded(opts, log, "--weight", "calls"))


def check_tree(t, case, opts, log, rep):
    doc = json.loads(rtrace(opts, "tree", "--format", "json", log))
    calls, self_ = collections.Counter(), collections.Counter()
    blocked = collections.Counter()
    todo = [(n, None) for n in doc["tree"]]
    while todo:
        n, parent = todo.pop()
        if n["name"] == BLOCKED:
            blocked[parent] += n["self_ns"]
            continue
        calls[n["name"]] += n["calls"]
        self_[n["name"]] += n["self_ns"]
        todo.extend((c, n["name"]) for c in n["children"])
    compare(t, case, "tree: contexts = report calls",
            {n: r["calls"] for n, r in rep.items()}, calls)
    compare(t, case, "tree: contexts = report self",
            {n: r["self_ns"] for n, r in rep.items()}, self_)
    compare(t, case, "tree: [blocked] contexts = report blocked",
            {n: r["blocked_ns"] for n, r in rep.items()}, blocked)


def check_graph(t, case, opts, log, rep):
    doc = json.loads(rtrace(opts, "report", "--graph", "*", "--format",
                            "json", log))
    calls = {f["name"]: sum(c["calls"] for c in f["callers"])
             for f in doc["functions"]}
    total = {f["name"]: sum(c["total_ns"] for c in f["callers"])
             for f in doc["functions"]}
    compare(t, case, "graph: callers' calls = report calls",
            {n: r["calls"] for n, r in rep.items()}, calls)
    compare(t, case, "graph: callers' times = report total",
            {n: r["total_ns"] for n, r in rep.items()}, total)


def check_replay(t, case, opts, log, rep):
    lines = [l for l in rtrace(opts, "replay", log).decode().splitlines()
             if not l.startswith("#")]
    opened = sum(l.endswith("() {") or "() {  [" in l for l in lines)
    leaves = sum(");" in l for l in lines)
    closed = sum("} /* " in l for l in lines)
    want = sum(r["calls"] for r in rep.values())
    t.row(case, "replay: one line per call", opened + leaves == want, want,
          opened + leaves)
    t.row(case, "replay: every block closed", opened == closed, opened, closed)
    check_replay_min_total(t, case, opts, log)


# time (14), duration (11), tid (9), two spaces; then the indentation (a
# depth in brackets past its cap), the name, and "() {" or "();"
REPLAY_CALL = re.compile(r"^.{36}\s*(?:\[\d+\] )?(.*?)\(\)( \{|;)")


def check_replay_min_total(t, case, opts, log):
    """replay --min-total T: the calls of at least T, as the chrome export
    times them, each once, with their blocks closed."""
    calls = [e for e in chrome_events(opts, log) if e.get("ph") == "X"]
    totals = sorted(int(e["args"]["total_ns"]) for e in calls)
    if not totals:
        return
    cut = max(totals[len(totals) // 2], 1)
    lines = [l for l in rtrace(opts, "replay", "--min-total", f"{cut}ns",
                               log).decode().splitlines()
             if not l.startswith("#")]
    got = collections.Counter(m.group(1) for m in map(REPLAY_CALL.match,
                                                       lines) if m)
    want = collections.Counter(e["name"] for e in calls
                               if int(e["args"]["total_ns"]) >= cut)
    compare(t, case, f"replay --min-total {cut}ns: the calls that long",
            want, got)
    opened = sum(bool(m) and m.group(2) == " {"
                 for m in map(REPLAY_CALL.match, lines))
    closed = sum("} /* " in l for l in lines)
    t.row(case, "replay --min-total: every block closed", opened == closed,
          opened, closed)


def check_live(t, case, opts, exe, fixture, args, tmp):
    log, trace, stacks = (os.path.join(tmp, n) for n in
                          ("live.rtrace", "live.json", "live.folded"))
    p = subprocess.run([opts.rtrace, "-q", "-o", log, "--tree", "--export",
                        "chrome:" + trace, "--export", "folded:" + stacks,
                        "-f", fixture + "::*", "--", exe] + args, cwd=tmp,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       timeout=600)
    err = p.stderr.decode(errors="replace")
    t.row(case, "live: --tree in place of the table",
          p.returncode == 0 and "# rtrace tree: " in err and
          "avg/min/max" not in err, "tree", p.returncode, err[-2000:])
    with open(trace) as f:
        live = json.load(f)["traceEvents"]
    again = json.loads(rtrace(opts, "export", "--format", "chrome", log))
    t.row(case, "live: --export chrome = rtrace export",
          live == again["traceEvents"], len(again["traceEvents"]), len(live))
    with open(stacks, "rb") as f:
        t.row(case, "live: --export folded = rtrace export",
              f.read() == rtrace(opts, "export", "--format", "folded", log))


# ---- damaged logs and deep recursion --------------------------------------

def _blocks(b):
    off = struct.unpack_from("<I", b, 12)[0]  # header length
    while off + 8 <= len(b):
        kind, n = struct.unpack_from("<II", b, off)
        yield kind, off + 8, n
        off += 8 + n


def _varint(b, at):
    v, shift = 0, 0
    while True:
        v |= (b[at] & 0x7F) << shift
        shift += 7
        at += 1
        if not b[at - 1] & 0x80:
            return v, at


def _zigzag(v):
    return (v << 1) ^ (v >> 63)


def _leb(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    return bytes(out + bytes([v]))


def _packed_entry(b, at, end):
    """(start, end, thread's previous func) of the func field of the first
    entry in the PACKED block payload b[at:end] (docs/log-format.md)."""
    seen, cur, prev = set(), None, {}
    while at < end:
        tag = b[at]
        at += 1
        more = 0
        if tag & 0x80:
            more, at = b[at], at + 1
        if tag & 0x40:
            cur, at = _varint(b, at)
            if cur not in seen:
                seen.add(cur)
                at = _varint(b, at)[1]          # pid
        at += 1 if more & 1 else 0              # flags
        at = _varint(b, at)[1] if more & 2 else at
        kind = tag & 15
        if kind == 15:
            kind, at = b[at], at + 1
        at = _varint(b, _varint(b, at)[1])[1]   # ts, sp
        d, after = _varint(b, at)
        func = (prev.get(cur, 0) + ((d >> 1) ^ -(d & 1))) & 0xFFFFFFFF
        if kind == 1:
            return at, after, prev.get(cur, 0)
        prev[cur] = func
        at = after
        if tag >> 4 & 3:
            at = _varint(b, at)[1]              # value
    return None


def damage_func_id(b):
    """The first entry event (docs/log-format.md, EVENTS or PACKED) names
    function 0xE3000000, which the table does not hold."""
    b = bytearray(b)
    for kind, at, n in _blocks(b):
        for r in range(at, at + n, 40) if kind == 3 else ():
            if b[r + 36] == 1:
                struct.pack_into("<I", b, r + 32, 0xE3000000)
                return bytes(b)
        hit = _packed_entry(b, at, at + n) if kind == 8 else None
        if hit:
            start, end, prev = hit
            d = (0xE3000000 - prev) & 0xFFFFFFFF
            d = d - (1 << 32) if d >> 31 else d
            new = _leb(_zigzag(d) & 0xFFFFFFFFFFFFFFFF)
            b[start:end] = new
            struct.pack_into("<I", b, at - 4, n + len(new) - (end - start))
            return bytes(b)
    raise ValueError("no entry event in the log")


def damage_funcs(b):
    """The first FUNCS row's name is longer than 1 MiB: malformed."""
    b = bytearray(b)
    for kind, at, n in _blocks(b):
        if kind == 2:
            struct.pack_into("<I", b, at + 4 + 32, 0x7FFFFFFF)
            return bytes(b)
    raise ValueError("no function table in the log")


def _one_gib():
    # not under AddressSanitizer (make test-sanitize): its shadow memory
    # alone is terabytes of address space; the plain run keeps the check
    if "ASAN_OPTIONS" not in os.environ:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


VIEWS = [["tree"], ["replay"], ["report", "--graph", "*"],
         ["report", "--mem"], ["report", "--stacks"], ["report"]] + \
        [["export", "--format", f] for f in ("chrome", "folded", "svg", "html")]


def check_damaged(t, case, opts, log, tmp):
    with open(log, "rb") as f:
        good = f.read()
    for name, damage in (("func 0xE3000000", damage_func_id),
                         ("bad FUNCS", damage_funcs)):
        bad = os.path.join(tmp, "damaged.rtrace")
        with open(bad, "wb") as f:
            f.write(damage(good))
        for view in VIEWS:
            p = subprocess.run([opts.rtrace] + view + [bad],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               preexec_fn=_one_gib, timeout=120)
            lines = p.stderr.decode(errors="replace").splitlines()
            errors = [l for l in lines if not l.startswith("rtrace: warning: ")]
            ok = (p.returncode in (0, 2) and len(errors) <= 1 and
                  all(l.startswith("rtrace: ") for l in lines))
            t.row(case, "%s: %s" % (name, " ".join(view)), ok,
                  "0/2, 1 line", "%d, %d lines" % (p.returncode, len(lines)),
                  detail=p.stderr.decode(errors="replace"))


def output_size(cmd, cap):
    """Bytes @cmd writes on stdout, reading no further than @cap."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    n = 0
    try:
        while n <= cap:
            chunk = p.stdout.read(1 << 20)
            if not chunk:
                break
            n += len(chunk)
    finally:
        p.kill()
        p.wait()
    return n


def check_deep(opts, t):
    case, depth, cap = "deeprec-O0", 40000, 64 << 20
    try:
        exe = driver.fixture(opts, "deeprec", "0")
    except (RuntimeError, OSError) as e:
        t.row(case, "build", False, detail=e)
        return
    tmp = tempfile.mkdtemp(prefix="rtrace-views.")
    try:
        log = os.path.join(tmp, "deep.rtrace")
        run([opts.rtrace, "record", "-q", "-o", log, "-f", "deeprec::*",
             "--", exe, str(depth), "1"], cwd=tmp)
        for view in (["tree"], ["replay"], ["export", "--format", "html"],
                     ["export", "--format", "folded"]):
            n = output_size([opts.rtrace] + view + [log], cap)
            t.row(case, "depth %d: %s" % (depth, " ".join(view)),
                  n <= cap, "<= %d MB" % (cap >> 20), "%.1f MB" % (n / 1e6))
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        t.row(case, "run", False, detail=e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_case(opts, t, fixture, args, opt):
    case = "%s-O%s" % (fixture, opt)
    try:
        exe = driver.fixture(opts, fixture, opt)
    except (RuntimeError, OSError) as e:
        t.row(case, "build", False, detail=e)
        return
    tmp = tempfile.mkdtemp(prefix="rtrace-views.")
    try:
        log = os.path.join(tmp, "run.rtrace")
        run([opts.rtrace, "record", "-q", "-o", log, "-f", fixture + "::*",
             "--", exe] + args, cwd=tmp)
        rep = report(opts, log)
        t.row(case, "record and report", bool(rep), "", "%d functions" % len(rep))
        for check in (check_chrome, check_folded, check_tree, check_graph,
                      check_replay):
            check(t, case, opts, log, rep)
        check_chrome_raw(t, case, opts, log)
        if (fixture, args, opt) == CASES[0]:
            check_live(t, case, opts, exe, fixture, args, tmp)
        if fixture == "recursion":
            check_damaged(t, case, opts, log, tmp)
    except (RuntimeError, OSError, subprocess.TimeoutExpired, ValueError,
            KeyError) as e:
        t.row(case, "run", False, detail=e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_diff(opts, t):
    exe = driver.fixture(opts, "hotloop", "0")
    tmp = tempfile.mkdtemp(prefix=".diff-", dir=opts.build)
    try:
        logs = []
        for n, pat in ((3000, "hotloop::*"), (8000, "hotloop::*"),
                       (8000, "hotloop::leaf")):
            logs.append(os.path.join(tmp, "%d-%d.rtrace" % (n, len(logs))))
            run([opts.rtrace, "record", "-q", "-o", logs[-1], "-f", pat, exe,
                 str(n)])
        d = json.loads(rtrace(opts, "diff", "--format", "json", logs[0], logs[1]))
        by = {f["name"]: f for f in d["functions"]}
        for side, log in (("old", logs[0]), ("new", logs[1])):
            ref = report(opts, log)
            for k in ("calls", "total_ns", "self_ns"):
                compare(t, "diff", "%s %s = report" % (side, k),
                        {n: r[k] for n, r in ref.items()},
                        {n: (f[side] or {}).get(k, 0) for n, f in by.items()})
        for k in ("calls", "total_ns", "self_ns"):
            compare(t, "diff", "change %s = new - old" % k,
                    {n: (f["new"] or {}).get(k, 0) - (f["old"] or {}).get(k, 0)
                     for n, f in by.items()},
                    {n: f["change"][k] for n, f in by.items()})
        leaf = by.get("hotloop::leaf", {})
        t.row("diff", "leaf's calls by construction",
              (leaf.get("old") or {}).get("calls") == 3000 and
              (leaf.get("new") or {}).get("calls") == 8000, "3000 -> 8000",
              _clip(leaf))
        ch = [abs(f["change"]["self_ns"]) for f in d["functions"]]
        t.row("diff", "largest change in self time first",
              ch == sorted(ch, reverse=True), "descending", _clip(ch))
        g = json.loads(rtrace(opts, "diff", "--format", "json", logs[1], logs[2]))
        st = {f["name"]: f["status"] for f in g["functions"]}
        want = {"hotloop::leaf": "both", "hotloop::middle": "gone",
                "hotloop::outer": "gone"}
        t.row("diff", "functions one run did not trace are gone",
              all(st.get(k) == v for k, v in want.items()), _clip(want),
              _clip(st))
        p = subprocess.run([opts.rtrace, "diff", logs[0]], capture_output=True,
                           text=True)
        t.row("diff", "one log: status 2, one line", p.returncode == 2 and
              len(p.stderr.strip().splitlines()) == 1, "2, 1 line",
              "%d, %r" % (p.returncode, p.stderr))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def near(a, b, tol):
    return abs(a - b) <= tol


def shares_consistent(t, case, rep):
    """Each row's shares are its times over the run's wall time."""
    wall = rep["wall_ns"]
    bad = [f["name"] for f in rep["functions"]
           if f["total_ns"] is None and (f["total_pct"], f["self_pct"]) !=
           (None, None) or f["total_ns"] is not None and not (
               near(f["total_pct"], 100.0 * f["total_ns"] / wall, 0.006) and
               near(f["self_pct"], 100.0 * f["self_ns"] / wall, 0.006))]
    t.row(case, "% = time / wall_ns, every row", not bad, "none off", _clip(bad))


def same_in_other_formats(t, case, opts, log, by):
    """CSV, text and HTML show the JSON's shares and marks."""
    import csv
    import html
    rows = list(csv.DictReader(rtrace(opts, "report", "--format", "csv",
                                      log).decode().splitlines()))
    bad = [r["name"] for r in rows
           if r["total_pct"] != "%.2f" % by[r["name"]]["total_pct"]
           or r["self_pct"] != "%.2f" % by[r["name"]]["self_pct"]
           or r["marks"] != "".join(m[0].upper() for m in by[r["name"]]["marks"])]
    t.row(case, "csv: shares and marks = json", rows and not bad, "", _clip(bad))
    text = rtrace(opts, "report", "--color", "never", log).decode()
    bad = []
    for name, f in by.items():
        # calls, total and its unit, %, self and its unit, %
        line = [ln.split() for ln in text.splitlines() if ln.endswith(" " + name)]
        cols = line[0] if line else []
        if len(cols) < 6 or not (near(float(cols[3]), f["total_pct"], 0.051) and
                                 near(float(cols[6]), f["self_pct"], 0.051)):
            bad.append(name)
    t.row(case, "text: shares = json", not bad, "", _clip(bad), detail=text)
    page = html.unescape(rtrace(opts, "export", "--format", "html", log).decode())
    notes = text[text.index("\ntotal: "):].strip().splitlines()
    missing = [n for n in notes if n and n not in page]
    t.row(case, "html: every note of the text report", not missing,
          "%d notes" % len(notes), _clip(missing))


def shares_by_construction(t, case, out, p):
    """Parent's self share over its total share: what its spins took by
    the program's clock (1 ms of its own in 5 ms, or longer under load).
    Events recorded in the program only: the stops' compensation is
    t006's to check, on a machine left alone."""
    spun = [ln.split() for ln in out.splitlines()
            if ln.startswith("TIME busywait::parent ")]
    own = int(spun[0][3]) / int(spun[0][2]) if spun else 0
    t.row(case, "parent's self % / total % = its spins' (15 %)",
          own and near(p["self_pct"] / p["total_pct"], own, 0.15 * own),
          "%.3f" % own, "%.3f" % (p["self_pct"] / p["total_pct"]))


def check_shares(opts, t):
    case, k = "busywait-O3", 20
    exe = driver.fixture(opts, "busywait", "3")
    tmp = tempfile.mkdtemp(prefix=".shares-", dir=opts.build)
    try:
        for engine in ("inline", "trap"):
            log = os.path.join(tmp, engine + ".rtrace")
            # out-of-line calls only: every row has a time to share (the
            # unit tests cover the rows of untimed inlined calls)
            out = run([opts.rtrace, "record", "-q", "--engine", engine,
                       "--no-inlined", "-o", log, "-f", "busywait::*", exe,
                       str(k)]).decode()
            rep = json.loads(rtrace(opts, "report", "--format", "json", log))
            by = {f["name"]: f for f in rep["functions"]}
            c = "%s %s" % (case, engine)
            p, leaf = by["busywait::parent"], by["busywait::leaf"]
            shares_consistent(t, c, rep)
            t.row(c, "leaf's total % + parent's self % = parent's total %",
                  near(leaf["total_pct"] + p["self_pct"], p["total_pct"], 0.02),
                  "%.2f" % p["total_pct"],
                  "%.2f + %.2f" % (leaf["total_pct"], p["self_pct"]))
            if engine == "inline":
                shares_by_construction(t, c, out, p)
            stopped = {s["name"] for s in rep["stopped"]}
            want = {n: (["stops"] if engine == "trap" or n in stopped else [])
                    for n in ("busywait::parent", "busywait::leaf")}
            # with a stop per event, a loaded machine can make the stops
            # of a 5 ms call cost more than the call: compensated is
            # then the truth, and not checked
            got = {n: [m for m in by[n]["marks"]
                       if engine == "inline" or m != "compensated"]
                   for n in want}
            t.row(c, "ms-long calls: stops only when they stopped", want == got,
                  _clip(want), _clip(got))
            same_in_other_formats(t, c, opts, log, by)
            compensated_as_measured(t, c, opts, log, by)
    except (RuntimeError, OSError, KeyError, ValueError) as e:
        t.row(case, "run", False, detail=e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def compensated_as_measured(t, case, opts, log, by):
    """A row is marked compensated exactly when the cost taken out of its
    total (its total with --raw-times, less its total) is more than what
    is left."""
    raw = report(opts, log, "--raw-times")
    bad = [n for n, f in by.items()
           if ("compensated" in f["marks"]) !=
           (raw[n]["total_ns"] - f["total_ns"] > f["total_ns"])]
    t.row(case, "compensated = taken out > left (--raw-times)", not bad,
          "", _clip(bad))


def check_tiny_marks(opts, t):
    case = "tinyfuncs-O3 trap"
    exe = driver.fixture(opts, "tinyfuncs", "3")
    tmp = tempfile.mkdtemp(prefix=".marks-", dir=opts.build)
    try:
        log = os.path.join(tmp, "tiny.rtrace")
        run([opts.rtrace, "record", "-q", "--engine", "trap", "--no-inlined",
             "-o", log, "-f", "tinyfuncs::*", exe, "3000"])
        by = {f["name"]: f for f in json.loads(rtrace(
            opts, "report", "--format", "json", log))["functions"]}
        bad = [n for n, f in by.items() if "stops" not in f["marks"]]
        t.row(case, "every row: stops", not bad, "", _clip(bad))
        compensated_as_measured(t, case, opts, log, by)
    except (RuntimeError, OSError, KeyError, ValueError) as e:
        t.row(case, "run", False, detail=e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def blocked_cells(page):
    """{function: data-v of its blocked cell} of the HTML table, whose
    header must have a blocked column."""
    head = re.search(r"<thead><tr>(.*?)</tr></thead>", page)
    cols = re.findall(r"<th[^>]*>([^<]*)</th>", head.group(1)) if head else []
    if "blocked" not in cols:
        return {}
    k = cols.index("blocked")
    cells = {}
    for row in re.findall(r"<tr><td.*?</tr>", page):
        tds = re.findall(r"<td([^>]*)>(.*?)</td>", row)
        if len(tds) < len(cols):
            continue  # not a row of this table
        v = re.search(r'data-v="(\d+)"', tds[k][0])
        name = re.sub(r"<[^>]*>|\s*\[.*$", "", tds[cols.index("function")][1])
        if v:
            cells[name] = int(v.group(1))
    return cells


def check_blocked(opts, t):
    """blocking.rs: JSON, CSV, text and HTML carry each row's blocked
    time, the flame graph a [blocked] frame; --no-blocked takes the
    probes out and leaves the counts."""
    import csv
    import html
    case = "blocking-O3"
    exe = driver.fixture(opts, "blocking", "3")
    tmp = tempfile.mkdtemp(prefix=".blocked-", dir=opts.build)
    try:
        log, off = (os.path.join(tmp, n) for n in ("on.rtrace", "off.rtrace"))
        run([opts.rtrace, "record", "-q", "-o", log, "-f", "blocking::*",
             exe], cwd=tmp)
        run([opts.rtrace, "record", "-q", "--no-blocked", "-o", off, "-f",
             "blocking::*", exe], cwd=tmp)
        doc = json.loads(rtrace(opts, "report", "--format", "json", log))
        timed = [f for f in doc["functions"] if f["timed_calls"]]
        t.row(case, "json: blocked_ns and blocked_pct in every timed row",
              timed and all(isinstance(f.get("blocked_ns"), int) and
                            isinstance(f.get("blocked_pct"), float)
                            for f in timed), "", len(timed))
        by = {f["name"]: f["blocked_ns"] or 0 for f in doc["functions"]}
        sl = by.get("blocking::sleeper", 0)
        t.row(case, "json: the sleeper's five 20 ms sleeps are blocked",
              sl >= 5 * 20000000, ">= 100 ms", sl)
        rows = csv.DictReader(rtrace(opts, "report", "--format", "csv",
                                     log).decode().splitlines())
        got = {r["name"]: int(r["blocked_ns"] or 0) for r in rows}
        compare(t, case, "csv: blocked_ns = json", by, got)
        text = rtrace(opts, "report", "--color", "never", log).decode()
        line = [ln for ln in text.splitlines() if ln.endswith(" blocking::sleeper")]
        t.row(case, "text: a blocked column; the sleeper marked B",
              " blocked " in text and line and " B " in line[0], "",
              line[0] if line else "", detail=text)
        page = html.unescape(rtrace(opts, "export", "--format", "html",
                                    log).decode())
        compare(t, case, "html: blocked cells = json", by,
                blocked_cells(page))
        svg = rtrace(opts, "export", "--format", "svg", log).decode()
        t.row(case, "svg: [blocked] frames", ">[blocked]" in svg or
              "[blocked]\n" in svg, "", "")
        none = report(opts, off)
        both = report(opts, log)
        t.row(case, "--no-blocked: no blocked time",
              not any(r["blocked_ns"] for r in none.values()), "0",
              sum(r["blocked_ns"] for r in none.values()))
        compare(t, case, "--no-blocked: the same calls",
                {n: r["calls"] for n, r in both.items()},
                {n: r["calls"] for n, r in none.items()})
    except (RuntimeError, OSError, KeyError, ValueError) as e:
        t.row(case, "run", False, detail=e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_instances(opts, t):
    """--instances: closures.rs's three closures of main are three rows
    of one name; each says where it is, and its line is the closure's."""
    case = "closures-O0 --instances"
    exe = driver.fixture(opts, "closures", "0")
    lines = open(os.path.join(opts.fixtures, "closures.rs")).read().split("\n")
    tmp = tempfile.mkdtemp(prefix=".instances-", dir=opts.build)
    try:
        log = os.path.join(tmp, "c.rtrace")
        run([opts.rtrace, "record", "-q", "-o", log, "-f", "closures::*", exe])
        rows = [f for f in json.loads(rtrace(
            opts, "report", "--instances", "--format", "json", log))[
                "functions"] if f["name"] == "closures::main::{{closure}}"]
        where = sorted((os.path.basename(f.get("file") or ""), f.get("line", 0))
                       for f in rows)
        ok = len(rows) == 3 and len({w[1] for w in where}) == 3 and all(
            w[0] == "closures.rs" and "|" in lines[w[1] - 1] for w in where)
        t.row(case, "json: each closure's file and line", ok,
              "3 closures on their lines", _clip(where))
        text = rtrace(opts, "report", "--instances", "--color", "never",
                      log).decode()
        shown = ["(closures.rs:%d)" % w[1] for w in where]
        t.row(case, "text: each closure's line after its name",
              all(("closures::main::{{closure}} " + w) in text for w in shown),
              _clip(shown), detail=text)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    opts = driver.options(__doc__.split("\n")[0])
    if not shutil.which(opts.rustc):
        print("views_check.py: rustc not found (%s)" % opts.rustc, file=sys.stderr)
        return 2
    t = Table()
    for fixture, args, opt in CASES:
        check_case(opts, t, fixture, args, opt)
    check_deep(opts, t)
    check_diff(opts, t)
    check_shares(opts, t)
    check_tiny_marks(opts, t)
    check_blocked(opts, t)
    check_instances(opts, t)
    return 1 if t.ng else 0


if __name__ == "__main__":
    sys.exit(main())
