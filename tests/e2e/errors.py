#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every error rtrace gives, as docs/errors.md tabulates it.

    errors.py --rtrace PATH --rustc PATH --fixtures DIR --build DIR --table FILE

Reads the table of FILE (docs/errors.md): each row names a scenario (its
first column, `id`), the message and the exit status.  For each row this
script sets the scenario up (a function scenario_<id> below), runs rtrace,
and checks that the exit status is the row's and that one line of stderr
is the row's message, where `{name}` stands for a path or a number the
scenario made and `...` (the ellipsis character) for any text.  Some
scenarios check more (the program ran on, the report says the log is
cut).  A row without a scenario, or a scenario without a row, is NG: the
table and the tests cannot drift apart.  A scenario that cannot be set up
here (no `setpriv`, running as a user that has no one to refuse it) says
SKIP and why.  Exit status 0 when no row is NG.
"""
import json
import os
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402
from driver import row  # noqa: E402

ROW = re.compile(r"^\|\s*`([a-z0-9-]+)`\s*\|(.*)\|\s*`(.+)`\s*\|\s*(\d+)[^|]*\|\s*$")


class Skip(Exception):
    pass


class Cx:
    """What the scenarios share: rtrace, the fixture, a scratch directory."""

    def __init__(self, args, tmp):
        self.rtrace, self.tmp = args.rtrace, tmp
        self.args = args
        self._exe = None

    @property
    def exe(self):
        if not self._exe:
            self._exe = driver.fixture(self.args, "hotloop", "0")
        return self._exe

    def path(self, name):
        return os.path.join(self.tmp, name)

    def copy(self, name, mode=0o755):
        p = self.path(name)
        shutil.copy(self.exe, p)
        os.chmod(p, mode)
        return p

    def log(self, name="good.rtrace"):
        p = self.path(name)
        if not os.path.exists(p):
            subprocess.run([self.rtrace, "record", "-q", "-o", p, "-f", "hotloop::*",
                            self.exe, "100"], check=True, capture_output=True)
        return p


def patched(cx, name, offset, data):
    """A copy of the fixture with @data written at @offset."""
    p = cx.copy(name)
    with open(p, "r+b") as f:
        f.seek(offset)
        f.write(data)
    return p


def log_patched(cx, name, offset, data, cut=None):
    with open(cx.log(), "rb") as f:
        d = bytearray(f.read())
    d[offset:offset + len(data)] = data
    p = cx.path(name)
    with open(p, "wb") as f:
        f.write(d[:cut] if cut else d)
    return p


TRACE = ["-f", "hotloop::*"]

# ---- the scenarios: each returns (argv, placeholders[, options]) ----------


def scenario_missing(cx):
    p = cx.path("no-such-program")
    return TRACE + [p], {"prog": p}


def scenario_missing_in_path(cx):
    return TRACE + ["no-such-program-anywhere"], {"prog": "no-such-program-anywhere"}


def scenario_not_executable(cx):
    p = cx.copy("no-x-bit", 0o644)
    return TRACE + [p, "10"], {"prog": p}


def scenario_directory(cx):
    return TRACE + [cx.tmp], {"prog": cx.tmp}


def scenario_not_elf(cx):
    p = cx.path("script.sh")
    with open(p, "w") as f:
        f.write("#!/bin/sh\necho hello\n")
    os.chmod(p, 0o755)
    return TRACE + [p], {"prog": p}


def scenario_wrong_arch(cx):
    # e_machine (offset 18) = 183, EM_AARCH64
    p = patched(cx, "aarch64-prog", 18, b"\xb7\x00")
    return TRACE + [p, "10"], {"prog": p}


def scenario_corrupt_program(cx):
    p = cx.path("cut-prog")
    with open(cx.exe, "rb") as f, open(p, "wb") as g:
        g.write(f.read(100))
    os.chmod(p, 0o755)
    return TRACE + [p, "10"], {"prog": p}


def scenario_stripped(cx):
    strip = shutil.which("strip")
    if not strip:
        raise Skip("no strip program")
    p = cx.copy("stripped-prog")
    subprocess.run([strip, p], check=True)
    return TRACE + [p, "10"], {"prog": p}


def scenario_no_match(cx):
    return ["-f", "nomatch::*", cx.exe, "10"], {"prog": cx.exe}


def no_debug_copy(cx):
    """What cargo build --release makes: symbols, no DWARF, of the
    fixture whose functions are inlined."""
    strip = shutil.which("strip")
    if not strip:
        raise Skip("no strip program")
    p = cx.path("no-debug-prog")
    if not os.path.exists(p):
        shutil.copy(driver.fixture(cx.args, "inlined", "3"), p)
        subprocess.run([strip, "--strip-debug", p], check=True)
    return p


def scenario_no_match_no_debug(cx):
    # a function that exists only inlined there
    p = no_debug_copy(cx)
    return ["-f", "inlined::is_small", p], {"prog": p}


def scenario_no_debug(cx):
    p = no_debug_copy(cx)
    return ["-q", "-o", cx.path("no-debug.rtrace"), "-f", "inlined::*", p], \
        {"prog": p}


def scenario_invalid_glob(cx):
    return ["-f", "hotloop::[", cx.exe, "10"], {}


def scenario_log_missing(cx):
    p = cx.path("no-such.rtrace")
    return ["report", p], {"log": p}


def scenario_log_unreadable(cx):
    p = cx.path("unreadable.rtrace")
    shutil.copy(cx.log(), p)
    os.chmod(p, 0)
    if os.access(p, os.R_OK):
        raise Skip("running as root: every file is readable")
    return ["report", p], {"log": p}


def scenario_log_directory(cx):
    return ["report", cx.tmp], {"log": cx.tmp}


def scenario_not_a_log(cx):
    p = cx.path("text.rtrace")
    with open(p, "w") as f:
        f.write("not a log\n" * 10)
    return ["report", p], {"log": p}


def scenario_log_cut_in_header(cx):
    p = log_patched(cx, "cut.rtrace", 0, b"", cut=10)
    return ["report", p], {"log": p}


def scenario_log_corrupt(cx):
    # the first block after the 16-byte header is the session block:
    # a length of 3 cannot hold its fixed fields
    p = log_patched(cx, "corrupt.rtrace", 20, b"\x03\x00\x00\x00")
    return ["report", p], {"log": p}


def scenario_log_newer(cx):
    p = log_patched(cx, "newer.rtrace", 8, b"\x63\x00\x00\x00")  # version 99
    return ["report", p], {"log": p}


def scenario_log_no_dir(cx):
    p = cx.path("no/such/dir/x.rtrace")
    return ["record", "-o", p] + TRACE + [cx.exe, "10"], {"log": p}


def check_cut_run(cx, r, log, n):
    """The program ran on (its own output complete, exit 0), the report of
    what was written says the log was cut at the file size limit, the
    program's exit status and the counts' L marks, and the summary's event
    count is the number of events the log holds."""
    want = subprocess.run([cx.exe, str(n)], capture_output=True).stdout
    row("  the program ran to its end", "OK" if r.stdout == want else "NG",
        "stdout %d bytes, native %d" % (len(r.stdout), len(want)))
    rep = subprocess.run([cx.rtrace, "report", log], capture_output=True, text=True)
    ok = rep.returncode == 0 and "# log:      cut at rtrace's file size limit" in rep.stdout \
        and "# ended:    the program exited with status 0" in rep.stdout \
        and ("\nL: lost: its count is a lower bound: recording stopped before the end" in rep.stdout
             or "   calls: 0\n" in rep.stdout)  # no row to mark
    row("  the report says the log is cut at the limit, the program exited 0", "OK" if ok else "NG",
        rep.stderr.strip()[:100] or rep.stdout[:300])
    js = subprocess.run([cx.rtrace, "report", "--format", "json", log],
                        capture_output=True, text=True)
    said = re.search(r"hits?, ([\d,]+) events?", r.stderr.decode(errors="replace"))
    held = json.loads(js.stdout)["events"] if js.returncode == 0 else None
    said = int(said.group(1).replace(",", "")) if said else None
    row("  the summary counts the events the log holds",
        "OK" if said is not None and said == held else "NG",
        "summary %s, log %s" % (said, held))


def scenario_disk_full(cx):
    # a file size limit (ulimit -f): recording stops short of it
    log, n = cx.path("limited.rtrace"), 40000
    lim = 64 * 1024

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (lim, lim))
    return (["record", "-o", log] + TRACE + [cx.exe, str(n)], {},
            {"preexec": limit, "then": lambda r: check_cut_run(cx, r, log, n)})


def scenario_disk_low(cx):
    # an 8 MiB tmpfs in a mount namespace of rtrace's own
    mnt = cx.path("small")
    os.mkdir(mnt)
    ns = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-rm"]
    mount = ["mount", "-t", "tmpfs", "-o", "size=8m", "rtrace-small", mnt]
    if subprocess.run(ns + mount, capture_output=True).returncode != 0:
        raise Skip("cannot mount a tmpfs here")
    wrap = ns + ["sh", "-c", '%s && exec "$@"' % " ".join(mount), "sh"]
    return (["record", "-o", os.path.join(mnt, "g.rtrace")] + TRACE +
            [cx.exe, "1000000"], {}, {"wrap": wrap})


def scenario_dev_full(cx):
    return ["record", "-o", "/dev/full"] + TRACE + [cx.exe, "10"], {}


def scenario_log_is_program(cx):
    p = cx.copy("prog")
    size = os.path.getsize(p)

    def intact(r):
        row("  the program is left as it was", "OK" if os.path.getsize(p) == size else "NG",
            "%d bytes, was %d" % (os.path.getsize(p), size))
    return (["record", "-o", p, "--", p, "10"], {"prog": p}, {"then": intact})


def scenario_log_fifo(cx):
    p = cx.path("fifo")
    os.mkfifo(p)
    return ["record", "-o", p] + TRACE + [cx.exe, "10"], {"log": p}


def scenario_all_excluded(cx):
    return ["-f", "hotloop::*", "-e", "*", cx.exe, "10"], {"prog": cx.exe}


def scenario_damaged_program(cx):
    # e_shoff (offset 40) far past the end of the file
    p = patched(cx, "bad-shoff", 40, struct.pack("<Q", 1 << 40))
    return TRACE + [p, "10"], {"prog": p}


def scenario_output_full(cx):
    return ["report", cx.log()], {}, {"stdout": "/dev/full"}


def scenario_export_full(cx):
    return ["export", "--format", "html", "-o", "/dev/full", cx.log()], {}


def scenario_too_many_files(cx):
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (5, 5))
    return TRACE + [cx.exe, "10"], {"prog": cx.exe}, {"preexec": limit}


def scenario_no_such_pid(cx):
    pid = 4194304 + 1  # above any pid_max
    return ["-p", str(pid)], {"pid": str(pid)}


def scenario_other_user(cx):
    if os.getuid() != 0:
        # someone else's process: PID 1 when it is not ours
        if os.stat("/proc/1").st_uid == os.getuid():
            raise Skip("PID 1 is ours: no process of another user to try")
        return ["-p", "1"], {"pid": "1"}
    setpriv = shutil.which("setpriv")
    if not setpriv:
        raise Skip("running as root without setpriv: cannot be another user")
    wrap = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    # a checkout under /root is out of nobody's reach
    if subprocess.run(wrap + ["test", "-x", cx.rtrace]).returncode != 0:
        raise Skip("user nobody cannot run %s" % cx.rtrace)
    victim = subprocess.Popen(["sleep", "60"])
    return (["-p", str(victim.pid)], {"pid": str(victim.pid)},
            {"wrap": wrap, "then": lambda r: (victim.kill(), victim.wait())})


def code_at(pid, exe, symbol_part, n):
    """@n bytes of process @pid at the function of @exe (a PIE) whose
    symbol contains @symbol_part, and that address."""
    nm = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
    off = int([l.split()[0] for l in nm.splitlines() if symbol_part in l][0], 16)
    with open("/proc/%d/maps" % pid) as f:
        base = int([l for l in f if l.rstrip().endswith(exe)][0].split("-")[0], 16)
    with open("/proc/%d/mem" % pid, "rb") as mem:
        mem.seek(base + off)
        return mem.read(n)


def scenario_program_patched(cx):
    # tests/fixtures/hotpatch.rs rewrites hotpatch::target once rtrace's
    # probe is in it (its first bytes changed), then rtrace leaves
    exe = driver.fixture(cx.args, "hotpatch", "0")
    prog = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)
    pid = int(prog.stdout.readline().split()[1])
    before = code_at(pid, exe, "hotpatch6target", 8)

    def patch_once_armed():
        end = time.time() + 60
        while code_at(pid, exe, "hotpatch6target", 8) == before and time.time() < end:
            time.sleep(0.05)
        prog.stdin.write("patch\n")
        prog.stdin.flush()
        prog.stdout.readline()

    def finish(r):
        patcher.join()
        prog.stdin.write("call 1\nquit\n")
        prog.stdin.close()
        out = prog.stdout.read()
        if prog.wait(timeout=30) != 0 or not out.startswith("sum 42\n"):
            row("program-patched: the program keeps its code", "NG",
                "exit %d, %r" % (prog.returncode, out))
    patcher = threading.Thread(target=patch_once_armed)
    patcher.start()
    return (["record", "-o", cx.path("patched.rtrace"), "-p", str(pid),
             "--duration", "3s", "-f", "hotpatch::*"], {"pid": str(pid)}, {"then": finish})


def scenario_count_and_coverage(cx):
    return ["--count", "--coverage"] + TRACE + [cx.exe, "10"], {}


def scenario_pid_and_program(cx):
    return ["-p", "1", cx.exe], {"prog": cx.exe}


def scenario_no_program(cx):
    return TRACE, {}


def scenario_unknown_option(cx):
    return ["--no-such-option", cx.exe], {}


def scenario_missing_value(cx):
    return ["-f"], {}


def scenario_two_logs(cx):
    return ["report", "--by", "thread", "a.rtrace", "b.rtrace"], {}


def scenario_script_error(cx):
    path = cx.path("bad.rtx")
    with open(path, "w") as f:
        f.write("trase hotloop::*\nrun\n")
    return ["-x", path, "--", cx.exe, "10"], {"file": path}


def scenario_script_expect(cx):
    # hotloop N calls its leaf N times, by construction
    path = cx.path("expect.rtx")
    with open(path, "w") as f:
        f.write("run\nexpect calls hotloop::leaf == 3\n")
    return ["-x", path, "--", cx.exe, "10"], {"file": path}


def scenario_script_missing(cx):
    return ["-x", cx.path("nosuch.rtx")], {"file": cx.path("nosuch.rtx")}


def scenario_script_not_regular(cx):
    return ["-x", "/dev/zero"], {"file": "/dev/zero"}, {"preexec": _limit_memory}


def scenario_script_too_large(cx):
    path = cx.path("big.rtx")
    with open(path, "w") as f:
        f.write(("# a comment line\n" * 70000))  # 1.1 MiB
    return ["-x", path], {"file": path}, {"preexec": _limit_memory}


def _limit_memory():
    # reading without end would meet this limit, not fill the machine;
    # under AddressSanitizer (make test-sanitize) its shadow memory alone
    # is terabytes of address space, and the plain run keeps the check
    if "ASAN_OPTIONS" not in os.environ:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def scenario_bad_format(cx):
    return ["report", "--format", "xml", cx.log()], {}


# ---- the table and the checks -------------------------------------------

def read_table(path):
    rows = []
    with open(path) as f:
        for line in f:
            m = ROW.match(line.rstrip("\n"))
            if m:
                rows.append((m.group(1), m.group(3), int(m.group(4))))
    return rows


def message_regex(msg, subst):
    out = ""
    for part in re.split(r"(\{\w+\}|…)", msg):
        if part == "…":
            out += ".*"
        elif re.fullmatch(r"\{\w+\}", part):
            out += re.escape(subst[part[1:-1]])
        else:
            out += re.escape(part)
    return re.compile(out)


def run_row(cx, rid, msg, code):
    fn = globals().get("scenario_" + rid.replace("-", "_"))
    if not fn:
        row(rid, "NG", "no scenario for this row")
        return
    try:
        got = fn(cx)
    except Skip as e:
        row(rid, "SKIP", str(e))
        return
    argv, subst = got[0], got[1]
    opts = got[2] if len(got) > 2 else {}
    out = open(opts["stdout"], "w") if "stdout" in opts else subprocess.PIPE
    r = subprocess.run(opts.get("wrap", []) + [cx.rtrace] + argv, cwd=cx.tmp,
                       stdout=out, stderr=subprocess.PIPE, timeout=120,
                       preexec_fn=opts.get("preexec"))
    if out is not subprocess.PIPE:
        out.close()
    try:
        rx = message_regex(msg, subst)
    except KeyError as e:
        row(rid, "NG", "the message names %s, which the scenario does not set" % e)
        return
    lines = r.stderr.decode(errors="replace").splitlines()
    ok_msg = any(rx.fullmatch(l) for l in lines)
    ok = ok_msg and r.returncode == code
    row(rid, "OK" if ok else "NG", "exit %d%s" % (
        r.returncode, "" if ok else ", stderr: " + " / ".join(lines)[:300]))
    if "then" in opts:
        opts["then"](r)


def main():
    args = driver.options(extra=lambda ap: ap.add_argument("--table", required=True))
    args.table = os.path.abspath(args.table)
    rows = read_table(args.table)
    ids = {r[0] for r in rows}
    for name in sorted(globals()):
        if name.startswith("scenario_") and name[9:].replace("_", "-") not in ids:
            row(name[9:].replace("_", "-"), "NG", "a scenario without a row in the table")
    if not rows:
        row("table", "NG", "no rows in " + args.table)
    for rid, msg, code in rows:
        tmp = tempfile.mkdtemp(prefix="rtrace-errors.")
        try:
            run_row(Cx(args, tmp), rid, msg, code)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return driver.finish("%d rows, %%d NG" % len(rows))


if __name__ == "__main__":
    sys.exit(main())
