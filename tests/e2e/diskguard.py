#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The disk guard: a log on a small file system stops in time.

    diskguard.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR

Records the hotloop fixture with its log on an 8 MiB tmpfs, far too small
for the whole log (tens of MB).  The tmpfs is mounted by this script in a
mount namespace of its own: as root with `unshare -m`, otherwise with
`unshare -rm` where user namespaces are allowed; when neither works the
test says SKIP and exits 77.

Checks: the program's output and exit status are those of the program
run alone; rtrace prints exactly one warning about the disk space and
says in its summary that the log was cut for space; space is left on the
file system (the reserve, 2 MiB at least); the log ends cleanly (its
report says the program exited), and the text report and the JSON report
say it was cut for space.  The counts in the report are below the full
run's (recording stopped) and above zero.  A flight recorder
(--keep=10s) on the same file system stops in time too, its spool
included, and its log still gets the window's events: the reserve is
left free, the JSON report's window holds events and is cut for space.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402

SKIP = 77
CALLS = 1000000  # hotloop's leaf calls: 4 M events, about 35 MB of log

# Runs in the new mount namespace: mount the tmpfs, record, report, and
# print what the checks need.  $1 mount point, $2 rtrace, $3 fixture.
INNER = r"""
set -e
mount -t tmpfs -o size=8m rtrace-diskguard "$1"
set +e
"$2" record -o "$1/g.rtrace" -f 'hotloop::*' "$3" %d >"$1.out" 2>"$1.err"
echo $? >"$1.status"
df -B1 --output=avail "$1" | tail -1 >"$1.avail"
"$2" report "$1/g.rtrace" >"$1.report" 2>&1
"$2" report --format=json "$1/g.rtrace" >"$1.json" 2>&1
rm -f "$1/g.rtrace"
"$2" record --keep=10s -o "$1/k.rtrace" -f 'hotloop::*' "$3" %d >/dev/null 2>"$1.kerr"
df -B1 --output=avail "$1" | tail -1 >"$1.kavail"
"$2" report --format=json "$1/k.rtrace" >"$1.kjson" 2>&1
exit 0
""" % (CALLS, CALLS)


check = driver.row


def namespace_cmd(where):
    """The unshare command that lets us mount a tmpfs, or None."""
    cmds = ([["unshare", "-m"]] if os.geteuid() == 0 else []) + \
        [["unshare", "-rm"]]
    for cmd in cmds:
        probe = subprocess.run(cmd + ["mount", "-t", "tmpfs", "-o", "size=1m",
                                      "rtrace-probe", where],
                               capture_output=True)
        if probe.returncode == 0:
            return cmd
    return None


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def checks(native, mnt):
    out, err = read(mnt + ".out"), read(mnt + ".err")
    check("program output unchanged", out == native.stdout.decode())
    check("program exit status unchanged",
          read(mnt + ".status").strip() == str(native.returncode),
          read(mnt + ".status").strip())
    warns = [l for l in err.splitlines() if "disk space is low" in l]
    check("one warning line", len(warns) == 1, repr(warns))
    check("summary says cut for space",
          "the log is cut for space" in err, err.strip()[-200:])
    avail = int(read(mnt + ".avail"))
    check("reserve left free", avail >= 2 << 20, "%d bytes free" % avail)
    report = read(mnt + ".report")
    check("report: ended cleanly",
          "# ended:    the program exited with status 0" in report)
    check("report: cut for space", "# log:      cut for space" in report)
    try:
        js = json.loads(read(mnt + ".json"))
    except ValueError as e:
        js = {"error": str(e)}
    check("json: cut for space", js.get("cut_for_space") is True,
          str(js.get("cut_for_space")))
    check("json: ended cleanly", js.get("end") == "exited", js.get("end"))
    leaf = [f["calls"] for f in js.get("functions", [])
            if f["name"] == "hotloop::leaf"]
    check("some calls recorded, not all", leaf and 0 < leaf[0] < CALLS,
          str(leaf))
    avail = int(read(mnt + ".kavail"))
    check("flight recorder: reserve left free", avail >= 2 << 20,
          "%d bytes free" % avail)
    try:
        js = json.loads(read(mnt + ".kjson"))
    except ValueError as e:
        js = {"error": str(e)}
    win = js.get("window", {})
    check("flight recorder: window's events in the log",
          win.get("events", 0) > 0 and js.get("events") == win["events"],
          str(win))
    check("flight recorder: cut for space", js.get("cut_for_space") is True,
          read(mnt + ".kerr").strip()[-300:])


def main():
    args = driver.options(__doc__.split("\n")[1])
    tmp = tempfile.mkdtemp(prefix="rtrace-diskguard.")
    mnt = os.path.join(tmp, "mnt")
    os.mkdir(mnt)
    ns = namespace_cmd(mnt)
    if not ns:
        shutil.rmtree(tmp, ignore_errors=True)
        print("SKIP: cannot mount a tmpfs here (not root, and no user "
              "namespaces for unshare -rm)")
        return SKIP
    exe = driver.fixture(args, "hotloop", "0")
    native = subprocess.run([exe, str(CALLS)], capture_output=True)
    try:
        subprocess.run(ns + ["sh", "-c", INNER, "sh", mnt, args.rtrace, exe],
                       check=True)
        checks(native, mnt)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return driver.finish()


if __name__ == "__main__":
    sys.exit(main())
