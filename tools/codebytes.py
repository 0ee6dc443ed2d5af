# SPDX-License-Identifier: GPL-2.0-or-later
"""A running program's code against its file: the check that rtrace left
nothing of its own behind.  Shared by tests/e2e/realcode.py and
bench/detach.py."""


def differing(pid, exe):
    """(bytes of @exe's code mappings in process @pid that differ from the
    file's at the same offsets, bytes compared), read through
    /proc/PID/mem; None when the process ended meanwhile."""
    with open(exe, "rb") as f:
        image = f.read()
    differ = compared = 0
    try:
        with open("/proc/%d/maps" % pid) as maps, open("/proc/%d/mem" % pid, "rb") as mem:
            for m in maps.read().splitlines():
                f = m.split()
                if len(f) < 6 or "x" not in f[1] or f[5] != exe:
                    continue
                lo, hi = (int(x, 16) for x in f[0].split("-"))
                off = int(f[2], 16)
                want = image[off:off + (hi - lo)]
                mem.seek(lo)
                got = mem.read(len(want))
                compared += len(want)
                differ += sum(1 for a, b in zip(got, want) if a != b)
    except OSError:
        return None
    return differ, compared
