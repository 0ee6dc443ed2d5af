#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Separate debug files: found where they are, never looked for in vain.

    debugfile.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

Builds hotloop at -O0 with debug information, then two copies of it:

  split      its DWARF moved to hotloop.debug beside it, named by
             .gnu_debuglink: `rtrace -l` gives the functions' source
             lines, which only the debug file holds, and a run counts the
             fixture's calls
  bare       its DWARF removed, no debug file: a run counts the fixture's
             calls, and rtrace does not load the debuginfod client (with
             its network libraries) to look for a file nobody serves
  servers    the bare copy with DEBUGINFOD_URLS set (a port nothing
             listens on): rtrace asks the servers the user configured,
             and the run still counts the calls (where the debuginfod
             client is installed)

Each check prints OK or NG; the exit status is 0 only when none is NG.
"""
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402

N = 1000
check = driver.row
CLIENT = "libdebuginfod.so"


def objcopy(*args):
    subprocess.run(["objcopy"] + list(args), check=True)


def traced(rtrace, exe, tmp, env):
    """A run of @exe under rtrace with the dynamic linker saying what it
    loads: (result, what it said of rtrace and its program)."""
    said = os.path.join(tmp, "ld")
    shutil.rmtree(said, ignore_errors=True)
    os.mkdir(said)
    env = dict(os.environ, LD_DEBUG="files",
               LD_DEBUG_OUTPUT=os.path.join(said, "files"), **env)
    r = subprocess.run([rtrace, "-q", "-o", os.path.join(tmp, "log.rtrace"),
                        "-f", "hotloop::*", exe, str(N)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    loaded = ""
    for name in os.listdir(said):
        with open(os.path.join(said, name), errors="replace") as f:
            loaded += f.read()
    return r, loaded


def exact(rep_out):
    return driver.counts(rep_out).get("hotloop::leaf") == N


def body(rtrace, exe, tmp):
    split = os.path.join(tmp, "hotloop")
    bare = os.path.join(tmp, "bare")
    objcopy("--only-keep-debug", exe, split + ".debug")
    objcopy("--strip-debug", "--add-gnu-debuglink=" + split + ".debug",
            exe, split)
    objcopy("--strip-debug", exe, bare)

    listing = driver.run([rtrace, "-l", "-f", "hotloop::leaf", split])
    check("split: -l gives the source line from the debug file",
          listing is not None and "hotloop.rs:" in listing.stdout,
          listing and listing.stdout[-300:])
    env = {"DEBUGINFOD_URLS": ""}
    r, loaded = traced(rtrace, split, tmp, env)
    check("split: the calls counted", r.returncode == 0 and exact(r.stdout),
          "exit %d" % r.returncode)

    r, loaded = traced(rtrace, bare, tmp, env)
    check("bare: the calls counted", r.returncode == 0 and exact(r.stdout),
          "exit %d" % r.returncode)
    check("bare: no debuginfod client loaded", CLIENT not in loaded,
          [l for l in loaded.splitlines() if CLIENT in l][:1])

    probe = subprocess.run(["ldconfig", "-p"], stdout=subprocess.PIPE,
                           text=True).stdout
    if CLIENT not in probe:
        check("servers: skipped, no debuginfod client here", True)
        return
    cache = os.path.join(tmp, "cache")
    r, loaded = traced(rtrace, bare, tmp, {
        "DEBUGINFOD_URLS": "http://127.0.0.1:1/",
        "DEBUGINFOD_CACHE_PATH": cache, "DEBUGINFOD_TIMEOUT": "5"})
    check("servers: the configured servers asked", CLIENT in loaded)
    check("servers: the calls counted", r.returncode == 0 and exact(r.stdout),
          "exit %d" % r.returncode)


if __name__ == "__main__":
    sys.exit(driver.side_main(__doc__, "hotloop", body))
