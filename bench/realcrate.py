#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rtrace on a real crate's tests, beside uftrace on the same run.

    bench/realcrate.py [--rtrace build/rtrace] [--crate regex-syntax]
                       [--filter ast::parse] [--runs 3] [--no-uftrace]

Builds the crate's test binary (debug) offline from the sources Debian
packages as librust-CRATE-dev (installed with apt-get when missing, as
root): cargo reads every crate from /usr/share/cargo/registry through a
directory source replacement, nothing is downloaded.  Then runs the tests
selected by --filter, alternating in each round:

  native   the test binary alone
  rtrace   rtrace record --stats -f 'CRATE::*' (the default engine)
  uftrace  uftrace record -P 'CRATE::.*' (dynamic patching; installed
           with apt-get when missing and run as root)

and prints the median wall time of each over --runs rounds, its ratio to
native (the median of the round-by-round ratios: a busy minute slows the
whole round), the probe hits rtrace counted, the share of them recorded
without a ptrace stop, and the functions whose breakpoints still stopped
the program (all from --stats).  The logs go to a temporary directory and
are removed: a full run writes gigabytes.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
REGISTRY = "/usr/share/cargo/registry"
CARGO_CONFIG = """[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "%s"
[net]
offline = true
""" % REGISTRY


def crate_sources(crate):
    """The newest packaged version of @crate, installed when missing."""
    pkg = "librust-%s-dev" % crate.replace("_", "-")
    have = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                          capture_output=True, text=True).stdout
    if "install ok installed" not in have and os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-qq",
                        "--no-install-recommends", pkg],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dirs = [d for d in os.listdir(REGISTRY) if d.startswith(crate + "-")
            and d[len(crate) + 1:][:1].isdigit()] if os.path.isdir(REGISTRY) else []
    if not dirs:
        sys.exit("bench: no %s sources in %s (apt-get install %s)" %
                 (crate, REGISTRY, pkg))
    key = lambda d: [int(x) if x.isdigit() else x
                     for x in re.split(r"[.-]", d[len(crate) + 1:])]
    return os.path.join(REGISTRY, max(dirs, key=key))


def test_binary(crate):
    """The crate's lib test executable, built once into build/bench/."""
    out = os.path.join(TOP, "build", "bench", "crates")
    src = os.path.join(out, "src", crate)
    from_dir = crate_sources(crate)
    os.makedirs(os.path.join(out, ".cargo"), exist_ok=True)
    with open(os.path.join(out, ".cargo", "config.toml"), "w") as f:
        f.write(CARGO_CONFIG)
    stamp = os.path.join(src, ".from")
    if not os.path.exists(stamp) or open(stamp).read() != from_dir:
        shutil.rmtree(src, ignore_errors=True)
        shutil.copytree(from_dir, src, symlinks=True)
        for junk in (".cargo-checksum.json",):
            if os.path.exists(os.path.join(src, junk)):
                os.remove(os.path.join(src, junk))
        with open(stamp, "w") as f:
            f.write(from_dir)
    env = dict(os.environ, CARGO_INCREMENTAL="0", CARGO_TERM_COLOR="never",
               PATH=os.path.expanduser("~/.cargo/bin") + ":" + os.environ["PATH"])
    p = subprocess.run(["cargo", "test", "--offline", "--no-run", "--lib",
                        "--target-dir", os.path.join(out, "target", crate),
                        "--message-format=json-render-diagnostics"],
                       cwd=src, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") == "compiler-artifact" and m.get("executable"):
            return m["executable"]
    sys.exit("bench: cargo built no test binary for " + crate)


def timed(cmd, tmp):
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=tmp, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    dt = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d): %s" % (" ".join(cmd), p.returncode,
                                                p.stderr[-500:]))
    return dt, p.stderr


def count(pattern, text):
    m = re.search(pattern, text)
    return int(m.group(1).replace(",", "")) if m else None


def stats_of(err):
    """Hits, hits without a stop, and the stopping functions line."""
    hits = count(r"stats: ([\d,]+) probe hits", err)
    inline = count(r"([\d,]+) events recorded without a stop", err)
    m = re.search(r"stats: stops at breakpoints in (.*)", err)
    return hits, inline, m.group(1) if m else "none"


def ensure_uftrace():
    if shutil.which("uftrace"):
        return True
    if os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-qq", "uftrace"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return shutil.which("uftrace") is not None


def one_round(args, binary, tmp, times, last):
    crate = args.crate.replace("-", "_")
    test = [binary, args.filter, "-q"]
    log = os.path.join(tmp, "run.rtrace")

    times["native"].append(timed(test, tmp)[0])
    dt, err = timed([args.rtrace, "record", "--stats", "-o", log, "-f",
                     crate + "::*", "--"] + test, tmp)
    os.unlink(log)
    times["rtrace"].append(dt)
    last.update(zip(("hits", "inline", "stopped"), stats_of(err)))
    if args.uftrace:
        data = os.path.join(tmp, "uftrace.data")
        times["uftrace"].append(timed(["uftrace", "record", "-d", data,
                                       "-P", crate + "::.*"] + test,
                                      tmp)[0])
        shutil.rmtree(data, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rtrace", default=os.path.join(TOP, "build", "rtrace"))
    ap.add_argument("--crate", default="regex-syntax")
    ap.add_argument("--filter", default="ast::parse")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-uftrace", dest="uftrace", action="store_false")
    args = ap.parse_args()
    args.uftrace = args.uftrace and ensure_uftrace()

    with tempfile.TemporaryDirectory(prefix="rtrace-bench-") as tmp:
        binary = test_binary(args.crate)
        times = {"native": [], "rtrace": [], "uftrace": []}
        last = {}
        for _ in range(args.runs):
            one_round(args, binary, tmp, times, last)

    print("%s tests matching %r, %d round%s" % (
        args.crate, args.filter, args.runs, "" if args.runs == 1 else "s"))
    print("| run | median wall | ratio to native |")
    print("| --- | ---: | ---: |")
    for name in ("native", "rtrace", "uftrace"):
        t = times[name]
        if not t:
            continue
        ratios = [a / b for a, b in zip(t, times["native"])]
        print("| %s | %.2f s | %.1f |" % (name, statistics.median(t),
                                          statistics.median(ratios)))
    if last.get("hits"):
        print("rtrace: %s probe hits, %.2f %% without a stop" %
              ("{:,}".format(last["hits"]),
               100.0 * (last["inline"] or 0) / last["hits"]))
    print("stops at breakpoints in: %s" % last.get("stopped", "none"))


if __name__ == "__main__":
    main()
