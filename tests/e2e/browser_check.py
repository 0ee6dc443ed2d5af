#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rtrace's SVG flame graph and HTML report, opened in headless Chromium.

    browser_check.py --rtrace PATH --program PATH --rustc PATH --fixtures DIR
                     --build DIR [--screenshots DIR] [-- ARGS]

Records PROGRAM ARGS (the demo), exports the log as SVG and as HTML, and
opens both in headless Chromium, driven through the DevTools protocol over
a pipe (--remote-debugging-pipe; no extra package).  Checks:

  svg   no console error, no uncaught exception, nothing fetched; as many
        frames as the folded stacks give (every calling context with some
        self time, and the root, minus those narrower than 0.1 px, counted
        here from `rtrace export --format folded`); hovering a frame shows
        its name on the details line; a click zooms (the frame takes the
        full width, frames outside it hide) and "Reset zoom" undoes it
  html  no console error, no exception, nothing fetched; one table row per
        function of `rtrace report --format json`; the flame graph's frames
        as above; one call tree entry per context of `rtrace tree
        --format json` with 0.01% of the total time or more (the page's
        rule); a click on "calls" sorts the table

Then two recordings that have marks and notes by construction, each
page against the text report (`rtrace report`) of the same log, whatever
marks and notes that prints:

  trap  PROGRAM with a small ARGS[0] (20) under --engine trap: every
        probe stops the program, so every timed row has stops, most
        compensated, the inlined calls' rows too short to time
  mixed tests/fixtures/compensate.rs, default engine: one function keeps
        a breakpoint at its entry (the breakpoint and stops notes, a row
        with stops), one is a few instructions (too short to time)

  marks  some row of the text table has a mark; each row of the page (in the order the text lists them, before any
         click) names the text's function, and its mark cell shows the
         text's marks, rendered: displayed, of non-zero size, inside the
         page, not covered (the element at its centre, scrolled to, is
         it) and 9 px or larger; its function cell says what the text's
         row says after the marks (the name, and the bracketed notes:
         inlined calls, instances, unwound calls...); hovering over a
         mark shows its line of the text's legend (its title)
  notes  every line the text prints under its table (the legend of
         each mark the rows have, explanations, warnings) and in its
         header after the duration (how the figures were made, how the
         program ended) is in the page's rendered text, in an element
         rendered as above
  fold   a note that starts below the first screen has a link to it on
         the first screen

With --screenshots DIR, saves flamegraph.png, html-report.png,
html-marks-trap.png and html-marks-mixed.png there; --raw-times passes
that option to every view (figures as measured).

Skips (exit 0, a SKIP line) when no Chromium is installed: Debian's package
is `chromium`, which .ci/install-deps installs for `make test`.  With
RTRACE_REQUIRE_BROWSER set (not empty, not 0; .ci/run sets it) a missing
Chromium or program fails instead.  Exit 1 when a check fails.  Python 3
standard library only.
"""

import base64
import collections
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402

FLAME_WIDTH = 1180   # RT_FLAME_WIDTH in include/rtrace/render.h
FLAME_MIN_PX = 0.1   # RT_FLAME_MIN_PX
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


class Table:
    def __init__(self):
        self.ng = 0

    def row(self, what, check, ok, expected="", got="", detail=None):
        self.ng += not ok
        print(("%-6s %-50s %-4s  %-16s %s" % (what, check, "OK" if ok else "NG",
                                              expected, got)).rstrip(), flush=True)
        if detail and not ok:
            for d in str(detail).splitlines()[:20]:
                print("    | " + d, flush=True)


# ---- a browser driven over the DevTools pipe -------------------------------

class Browser:
    """Chromium with --remote-debugging-pipe: commands go in on fd 3 and
    replies come out on fd 4, each a JSON text ended by a NUL byte."""

    def __init__(self, exe, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-extensions",
                "--user-data-dir=" + profile, "--window-size=1280,900",
                "--remote-debugging-pipe", "about:blank"]
        # the shell moves the pipe ends to the fds Chromium expects
        self.proc = subprocess.Popen(
            ["sh", "-c", 'exec "$@" 3<&%d 4>&%d' % (to_browser_r, from_browser_w),
             "sh"] + args, pass_fds=(to_browser_r, from_browser_w),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(msg).encode() + b"\0")
        while True:
            m = self.receive(timeout)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    def receive(self, timeout):
        end = time.monotonic() + timeout
        while b"\0" not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.from_browser], [], [], left)[0]:
                raise RuntimeError("the browser did not answer in %d s" % timeout)
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed the pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        m = json.loads(raw)
        if "method" in m:
            self.events.append(m)
        return m

    def wait_event(self, method, timeout=30):
        end = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method:
                    return self.events.pop(i)
            self.receive(max(0.1, end - time.monotonic()))

    def open_page(self):
        target = self.send("Target.createTarget", {"url": "about:blank"},
                           session=False)["targetId"]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable")

    def load(self, path):
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.send("Page.navigate", {"url": "file://" + os.path.abspath(path)})
        self.wait_event("Page.loadEventFired")
        self.eval("1")  # let pending console events arrive

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr,
                                           "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def problems(self):
        """Console errors, exceptions and requests that left the file."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                out.append("exception: %s" % p["exceptionDetails"].get("text"))
            elif e["method"] == "Runtime.consoleAPICalled" and \
                    p.get("type") in ("error", "assert", "warning"):
                out.append("console %s: %s" % (p["type"], p.get("args")))
            elif e["method"] == "Log.entryAdded" and \
                    p["entry"].get("level") in ("error", "warning"):
                out.append("log: %s" % p["entry"].get("text"))
            elif e["method"] == "Network.requestWillBeSent" and \
                    not p["request"]["url"].startswith(("file:", "data:")):
                out.append("fetched: %s" % p["request"]["url"])
        self.events = []
        return out

    def screenshot(self, path):
        """The whole page, or the whole drawing of an SVG document."""
        size = self.eval("(function (e) { return e instanceof SVGSVGElement ? "
                         "{width: e.width.baseVal.value, height: "
                         "e.height.baseVal.value} : null; })"
                         "(document.documentElement)")
        size = size or self.send("Page.getLayoutMetrics")["cssContentSize"]
        shot = self.send("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"],
                     "height": size["height"], "scale": 1}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self.to_browser)
        os.close(self.from_browser)


# ---- expectations from rtrace's other outputs ------------------------------

def rtrace(opts, cmd, *args):
    raw = ["--raw-times"] if opts.raw_times else []
    return subprocess.run([opts.rtrace, cmd] + raw + list(args), check=True,
                          stdout=subprocess.PIPE).stdout


def expected_frames(folded):
    """Frames a flame graph of these folded stacks draws: each prefix of a
    stack is a frame as wide as the weights below it; frames narrower than
    FLAME_MIN_PX are left out with everything above them; plus the root."""
    weight = collections.Counter()
    total = 0
    for line in folded.decode().splitlines():
        stack, w = line.rsplit(" ", 1)
        frames = stack.split(";")
        total += int(w)
        for i in range(1, len(frames) + 1):
            weight[tuple(frames[:i])] += int(w)
    if not total:
        return 0
    drawn = {p for p, w in weight.items() if w * FLAME_WIDTH / total >= FLAME_MIN_PX}
    return 1 + sum(all(p[:i] in drawn for i in range(1, len(p) + 1)) for p in drawn)


TREE_MIN_SHARE = 10000  # TREE_MIN_SHARE in src/output/html.c


def count_tree(nodes, least=None):
    """Contexts the HTML page lists: those with at least 1/TREE_MIN_SHARE
    of the total time, under listed ones."""
    if least is None:
        least = sum(n["total_ns"] for n in nodes) // TREE_MIN_SHARE
    return sum(1 + count_tree(n["children"], least) for n in nodes
               if n["total_ns"] >= least)


# ---- the checks ---------------------------------------------------------------

HOVER_AND_ZOOM = r"""
(function () {
  var fs = [].slice.call(document.querySelectorAll('svg.rtrace-flame g.f'));
  var svg = document.querySelector('svg.rtrace-flame');
  var details = svg.querySelector('.details');
  var target = fs.filter(function (g) { return +g.getAttribute('data-d') == 2; })[0];
  var name = target.querySelector('title').textContent.split('\n')[0];
  target.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
  var hover = details.textContent;
  target.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  var width = +target.querySelector('rect').getAttribute('width');
  var hidden = fs.filter(function (g) { return g.style.display == 'none'; }).length;
  var reset = svg.querySelector('.reset');
  var resetShown = reset.style.display != 'none';
  reset.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  var after = fs.filter(function (g) { return g.style.display == 'none'; }).length;
  return {name: name, hover: hover, width: width, hidden: hidden,
          resetShown: resetShown, hiddenAfterReset: after,
          rootWidth: +fs[0].querySelector('rect').getAttribute('width'),
          frames: fs.length, declared: +svg.getAttribute('data-frames')};
})()
"""


def check_flame(t, what, b, frames):
    r = b.eval(HOVER_AND_ZOOM)
    t.row(what, "flame graph: frames drawn", r["frames"] == frames, frames, r["frames"])
    t.row(what, "flame graph: data-frames attribute", r["declared"] == frames,
          frames, r["declared"])
    t.row(what, "hover: the details line shows the frame",
          r["hover"].startswith(r["name"]), r["name"], r["hover"])
    t.row(what, "click: the frame takes the full width",
          abs(r["width"] - FLAME_WIDTH) < 0.01, FLAME_WIDTH, r["width"])
    t.row(what, "click: frames outside it hide, reset shows",
          r["hidden"] > 0 and r["resetShown"], "> 0 hidden", r["hidden"])
    t.row(what, "reset zoom: every frame back",
          r["hiddenAfterReset"] == 0 and abs(r["rootWidth"] - FLAME_WIDTH) < 0.01,
          "0 hidden", r["hiddenAfterReset"])


SORT_BY_CALLS = r"""
(function () {
  var rows = function () {
    return [].map.call(document.querySelectorAll('table.fn tbody tr'),
                       function (r) { return +r.cells[0].getAttribute('data-v'); });
  };
  document.querySelectorAll('table.fn th')[0].click();
  var v = rows();
  return {rows: v.length, sorted: v.every(function (x, i) { return !i || v[i - 1] >= x; }),
          tree: document.querySelectorAll('ul.tree li').length};
})()
"""


def run_checks(opts, t, b, tmp):
    log = os.path.join(tmp, "run.rtrace")
    subprocess.run([opts.rtrace, "record", "-q", "-o", log, "--", opts.program]
                   + opts.args, check=True, stdout=subprocess.DEVNULL, cwd=tmp)
    frames = expected_frames(rtrace(opts, "export", "--format", "folded", log))
    svg, html = os.path.join(tmp, "flame.svg"), os.path.join(tmp, "report.html")
    rtrace(opts, "export", "-o", svg, log)
    rtrace(opts, "export", "-o", html, log)
    nrows = len(json.loads(rtrace(opts, "report", "--format", "json", log))["functions"])
    ntree = count_tree(json.loads(rtrace(opts, "tree", "--format", "json", log))["tree"])

    b.load(svg)
    bad = b.problems()
    t.row("svg", "no console error, exception or fetch", not bad, "none",
          len(bad), "\n".join(bad))
    check_flame(t, "svg", b, frames)
    if opts.screenshots:
        b.load(svg)
        b.screenshot(os.path.join(opts.screenshots, "flamegraph.png"))

    b.load(html)
    bad = b.problems()
    t.row("html", "no console error, exception or fetch", not bad, "none",
          len(bad), "\n".join(bad))
    if opts.screenshots:
        b.screenshot(os.path.join(opts.screenshots, "html-report.png"))
    r = b.eval(SORT_BY_CALLS)
    t.row("html", "summary table: a row per function", r["rows"] == nrows,
          nrows, r["rows"])
    t.row("html", "summary table: sorts by calls on a click", r["sorted"])
    t.row("html", "call tree: an entry per calling context", r["tree"] == ntree,
          ntree, r["tree"])
    check_flame(t, "html", b, frames)
    bad = b.problems()
    t.row("html", "no console error after the clicks", not bad, "none", len(bad),
          "\n".join(bad))


# ---- marks and notes: the page against the text report --------------------

TRAP_ARG = "20"         # the demo's documents under --engine trap: ~2 s
MIXED = ("compensate", "3", ["-f", "compensate::traced::*",
                             "-f", "compensate_mixed_spin"])
HEADER_FACTS = ("rtrace report", "command", "duration")  # the page's own words
MIN_FONT_PX = 9


def text_report(opts, log):
    """(rows, notes, text) of `rtrace report`: rows as (function, marks,
    what follows the marks) in the table's order, the marks being the one
    word of capitals before the name (the time columns are figures, units
    and "-"); notes the lines of the header after HEADER_FACTS, without
    their label, and every line under the table."""
    text = rtrace(opts, "report", "--color", "never", log).decode()
    names = [f["name"] for f in json.loads(
        rtrace(opts, "report", "--format", "json", log))["functions"]]
    lines = text.splitlines()
    head = next(i for i, ln in enumerate(lines)
                if ln.split()[:1] == ["calls"] and ln.rstrip().endswith("function"))
    notes = []
    for ln in lines[:head]:
        m = re.match(r"# (\w[\w ]*?):\s+(.*)", ln)
        if m and m.group(1) in HEADER_FACTS:
            continue
        if ln.strip():
            notes.append(m.group(2) if m else ln.lstrip("# "))
    body = lines[head + 1:]
    end = next((i for i, ln in enumerate(body) if not ln.strip()), len(body))
    rows = []
    for name, ln in zip(names, body[:end]):
        m = re.search(r"(?:^|\s)" + re.escape(name) + r"(?=\s|$)", ln)
        before = ln[:m.start()].split() if m else []
        marks = before[-1] if before and re.fullmatch("[A-Z]+", before[-1]) else ""
        said = " ".join(ln[m.start():].split()) if m else \
            "(%s not on: %s)" % (name, ln)
        rows.append((name, marks, said))
    if end != len(names):
        rows.append(("", "", "(%d rows in the text, %d in the json)" %
                     (end, len(names))))
    notes += [ln.strip() for ln in body[end:] if ln.strip()]
    return rows, notes, text


# Whether element e is rendered where one can see it: displayed, visible,
# of non-zero size, inside the page (its scrollable area), in a font of
# MIN_FONT_PX or more, and, scrolled to, the element at its centre is e
# or inside it (nothing covers it).
RENDERED_JS = r"""
function rendered(e) {
  var s = getComputedStyle(e);
  if (s.display == 'none' || s.visibility != 'visible' || +s.opacity == 0)
    return 'hidden (' + s.display + ', ' + s.visibility + ', ' + s.opacity + ')';
  if (parseFloat(s.fontSize) < %d) return 'font ' + s.fontSize;
  e.scrollIntoView({block: 'center', inline: 'center'});
  var r = e.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0)) return 'size ' + r.width + 'x' + r.height;
  var d = document.documentElement;
  if (r.left + scrollX < 0 || r.top + scrollY < 0 ||
      r.right + scrollX > d.scrollWidth + 0.5 ||
      r.bottom + scrollY > d.scrollHeight + 0.5)
    return 'outside the page at ' + [r.left + scrollX, r.top + scrollY];
  var x = Math.min(r.left + r.width / 2, innerWidth - 1);
  var y = Math.min(r.top + r.height / 2, innerHeight - 1);
  var at = document.elementFromPoint(x, y);
  if (!at || !(e.contains(at) || at.contains(e)))
    return 'covered by ' + (at ? at.tagName + '.' + at.className : 'nothing');
  return '';
}
function norm(t) { return (t || '').replace(/\s+/g, ' ').trim(); }
""" % MIN_FONT_PX

ROWS_JS = RENDERED_JS + r"""
(function () {
  var heads = [].map.call(document.querySelectorAll('table.fn thead th'),
                          function (th) { return norm(th.textContent); });
  var mc = heads.indexOf('mark'), nc = heads.indexOf('function');
  return [].map.call(document.querySelectorAll('table.fn tbody tr'), function (tr) {
    var m = tr.cells[mc], shown = [], tips = {};
    // each piece of text in the cell, in the element that holds it, and
    // the tooltip of each letter
    var w = document.createTreeWalker(m, NodeFilter.SHOW_TEXT);
    while (w.nextNode()) {
      var e = w.currentNode.parentElement, tip = e.closest('[title]');
      if (!norm(w.currentNode.nodeValue)) continue;
      shown.push(rendered(e));
      norm(w.currentNode.nodeValue).split('').forEach(function (c) {
        tips[c] = tip ? norm(tip.getAttribute('title')) : '';
      });
    }
    return {name: norm(tr.cells[nc].innerText), marks: norm(m.innerText),
            tips: tips, shown: shown.filter(function (s) { return s; }).join('; ')};
  });
})()
"""

# For each note: '' when an element that shows it is rendered, else why
# not; and whether its top is on the first screen, or a link there leads
# to an element that holds it.
NOTES_JS = RENDERED_JS + r"""
(function (notes) {
  scrollTo(0, 0);
  var all = [].filter.call(document.body.querySelectorAll('*'), function (e) {
    return e.innerText !== undefined && !e.closest('svg');
  });
  var texts = all.map(function (e) { return norm(e.innerText); });
  var screen = innerHeight;
  var links = [].filter.call(document.querySelectorAll('a[href^="#"]'), function (a) {
    var r = a.getBoundingClientRect();
    return r.height > 0 && r.top + scrollY < screen;
  }).map(function (a) { return document.getElementById(a.getAttribute('href').slice(1)); });
  return notes.map(function (n) {
    n = norm(n);
    var holders = all.filter(function (e, i) { return texts[i].indexOf(n) >= 0; });
    var inner = holders.filter(function (e) {
      return !holders.some(function (o) { return o !== e && e.contains(o); });
    });
    if (!inner.length) return {shown: 'not in the rendered text', pointed: false};
    var e = inner[0], top = e.getBoundingClientRect().top + scrollY;
    var pointed = top < screen || links.some(function (l) { return l && l.contains(e); });
    return {shown: rendered(e), pointed: pointed};
  });
})(%s)
"""


def check_marks(opts, t, b, what, log, shot):
    rows, notes, text = text_report(opts, log)
    html = log[:-len(".rtrace")] + ".html"
    rtrace(opts, "export", "-o", html, log)
    b.load(html)
    bad = b.problems()
    t.row(what, "no console error, exception or fetch", not bad, "none",
          len(bad), "\n".join(bad))
    marked = [r for r in rows if r[1]]
    t.row(what, "text: some row has a mark", marked, "> 0", len(marked), text)
    page = b.eval(ROWS_JS)
    t.row(what, "a page row per text row", len(page) == len(rows), len(rows),
          len(page))
    wrong = ["%s: %r, page %s: %r" % (said, m, p["name"], p["marks"])
             for (n, m, said), p in zip(rows, page)
             if p["name"] != said or p["marks"] != m]
    t.row(what, "each row: the text's marks, name and notes", not wrong,
          "%d marked" % len(marked), "%d wrong" % len(wrong), "\n".join(wrong))
    hidden = ["%s: %s" % (n, p["shown"]) for (n, m, said), p in zip(rows, page)
              if p["shown"]]
    t.row(what, "each mark rendered", not hidden, "", "%d not" % len(hidden),
          "\n".join(hidden))
    legend = {c for r in marked for c in r[1]} - {n[0] for n in notes
                                                  if n[1:2] == ":"}
    t.row(what, "text: a legend line per mark", not legend, "", "".join(legend))
    lines = {n[0]: " ".join(n.split()) for n in notes if n[1:2] == ":"}
    tips = ["%s %s: %r" % (p["name"], c, tip) for p in page
            for c, tip in sorted(p["tips"].items()) if tip != lines.get(c)]
    t.row(what, "each mark's tooltip: its legend line", not tips, "",
          "%d not" % len(tips), "\n".join(tips))
    seen = b.eval(NOTES_JS % json.dumps(notes))
    unseen = ["%s: %s" % (n, r["shown"]) for n, r in zip(notes, seen) if r["shown"]]
    t.row(what, "each note of the text, rendered", not unseen,
          "%d notes" % len(notes), "%d not" % len(unseen), "\n".join(unseen))
    far = [n for n, r in zip(notes, seen) if not r["pointed"]]
    t.row(what, "notes below the first screen: a link there", not far, "",
          "%d not" % len(far), "\n".join(far))
    if opts.screenshots:
        b.eval("scrollTo(0, 0)")
        b.screenshot(os.path.join(opts.screenshots, shot))
    bad = b.problems()
    t.row(what, "no console error after the checks", not bad, "none", len(bad),
          "\n".join(bad))


def run_marks(opts, t, b, tmp):
    log = os.path.join(tmp, "trap.rtrace")
    subprocess.run([opts.rtrace, "record", "-q", "--engine", "trap", "-o", log,
                    "--", opts.program, TRAP_ARG] + opts.args[1:], check=True,
                   stdout=subprocess.DEVNULL, cwd=tmp)
    check_marks(opts, t, b, "trap", log, "html-marks-trap.png")
    fixture, opt, patterns = MIXED
    exe = driver.fixture(opts, fixture, opt)
    log = os.path.join(tmp, "mixed.rtrace")
    subprocess.run([opts.rtrace, "record", "-q", "-o", log] + patterns +
                   ["--", exe], check=True, stdout=subprocess.DEVNULL, cwd=tmp)
    check_marks(opts, t, b, "mixed", log, "html-marks-mixed.png")


def main():
    def own(ap):
        ap.add_argument("--program", required=True, help="the program to record")
        ap.add_argument("--screenshots", help="directory for the PNG screenshots")
        ap.add_argument("--raw-times", action="store_true",
                        help="views with rtrace's cost per stop kept in")
        ap.add_argument("args", nargs="*", help="the program's arguments")
    opts = driver.options(__doc__.split("\n")[0], own)
    opts.program = os.path.abspath(opts.program)
    exe = next((shutil.which(n) for n in BROWSERS if shutil.which(n)), None)
    required = os.environ.get("RTRACE_REQUIRE_BROWSER", "") not in ("", "0")
    missing = None
    if not exe:
        missing = ("no Chromium to open the SVG and HTML exports "
                   "(Debian: apt-get install chromium)")
    elif not os.path.exists(opts.program):
        missing = "no program to record: %s" % opts.program
    if missing:
        print("%s: %s" % ("FAIL (RTRACE_REQUIRE_BROWSER is set)" if required
                          else "SKIP", missing))
        return 1 if required else 0
    tmp = tempfile.mkdtemp(prefix="rtrace-browser.")
    t = Table()
    b = None
    try:
        b = Browser(exe, os.path.join(tmp, "profile"))
        b.open_page()
        run_checks(opts, t, b, tmp)
        run_marks(opts, t, b, tmp)
    except (RuntimeError, OSError, subprocess.CalledProcessError, KeyError,
            StopIteration, ValueError) as e:
        t.row("-", "run", False, detail=e)
    finally:
        if b:
            b.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if t.ng else 0


if __name__ == "__main__":
    sys.exit(main())
