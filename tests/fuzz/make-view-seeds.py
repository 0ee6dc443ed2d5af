#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes the hand-built logs of the views harness (fuzz-views.c).

    make-view-seeds.py FUZZ_DIR

corpus/views/: the evlog seeds, plus a memory profile (allocation,
reallocation, free: what `report --mem` reads) and a recursion 200
deep.  regressions/views/: the inputs of issue "Every reader survives
every log": an entry naming function 0xE3000000, a malformed FUNCS
block, a profile block (--keep=none) cut inside while its block stays
whole, and recursion 1000 deep (a line per level of indentation made
the output grow with depth squared).  Built from docs/log-format.md,
field by field; each stays below 100 KB.
"""
import os
import shutil
import struct
import sys

ENTRY, EXIT, ARG = 1, 2, 9
MEM_ALLOC, MEM_REALLOC, MEM_FREE = 2, 4, 8
PID = 4242


def s(text):
    b = text.encode()
    return struct.pack("<I", len(b)) + b


def block(kind, payload):
    return struct.pack("<II", kind, len(payload)) + payload


def session():
    return block(1, struct.pack("<QQQII", 1000, 2000, 0, PID, 0) + s("./app") +
                 s("/w") + s("h") + s("0.1.0") + struct.pack("<II", 0, 0))


def funcs(rows):
    out = b""
    for fid, name, flags in rows:
        row = (struct.pack("<IIQQI", fid, 0, 0x1000 + 0x100 * fid, 0x40, 0) +
               s(name) + s(name) + s("/w/app") + struct.pack("<I", 0xFFFFFFFF) +
               struct.pack("<I", flags))
        out += struct.pack("<I", len(row)) + row
    return block(2, struct.pack("<I", len(rows)) + out)


def events(evs):
    return block(3, b"".join(struct.pack("<QQQIIIBBH", ts, sp, value, PID, PID,
                                         func, kind, 0, 1)
                             for ts, sp, value, func, kind in evs))


def end(n):
    return block(6, struct.pack("<QiIQQQ", 10 ** 9, 0, 1, n, n, 0))


def log(rows, evs):
    return (b"RTRACE\0L" + struct.pack("<II", 1, 16) + session() +
            funcs(rows) + events(evs) + end(len(evs)))


def deep(depth):
    evs = [(2000 + 10 * i, 0x7fff0000 - 16 * i, 0, 0, ENTRY)
           for i in range(depth)]
    evs += [(2000 + 10 * (depth + i), 0x7fff0000 - 16 * (depth - 1 - i), 0, 0,
             EXIT) for i in range(depth)]
    return log([(0, "d", 0)], evs)


def memory():
    rows = [(0, "app::main", 0), (1, "alloc", MEM_ALLOC),
            (2, "realloc", MEM_REALLOC), (3, "free", MEM_FREE)]
    top, sp = 0x7fff0000, 0x7ffeff00
    evs = [(2000, top, 0, 0, ENTRY),
           (2100, sp, 64, 1, ENTRY), (2200, sp, 0x5000, 1, EXIT),
           (2300, sp, 128, 2, ENTRY), (2301, sp, 0x5000, 2, ARG),
           (2400, sp, 0x6000, 2, EXIT),
           (2500, sp, 32, 1, ENTRY), (2600, sp, 0x7000, 1, EXIT),
           (2700, sp, 0x6000, 3, ENTRY), (2800, sp, 0, 3, EXIT),
           (2900, top, 0, 0, EXIT)]
    return log(rows, evs)


def patch_first_entry(b, func):
    """The log @b with the function id of its first entry set to @func."""
    b = bytearray(b)
    off = struct.unpack_from("<I", b, 12)[0]
    while off + 8 <= len(b):
        kind, n = struct.unpack_from("<II", b, off)
        for r in range(off + 8, off + 8 + n, 40) if kind == 3 else ():
            if b[r + 36] == ENTRY:
                struct.pack_into("<I", b, r + 32, func)
                return bytes(b)
        off += 8 + n
    raise ValueError("no entry event")


def profile_cut_inside(data):
    """The log with its PROFILE block's last 20 bytes gone, the block's
    length saying so: a whole block whose profile is cut short."""
    b = bytearray(data)
    off = struct.unpack_from("<I", b, 12)[0]
    while off + 8 <= len(b):
        kind, n = struct.unpack_from("<II", b, off)
        if kind == 9:
            struct.pack_into("<I", b, off + 4, n - 20)
            del b[off + 8 + n - 20:off + 8 + n]
            return bytes(b)
        off += 8 + n
    raise ValueError("no profile block")


def main():
    fuzz = sys.argv[1]
    corpus = os.path.join(fuzz, "corpus", "views")
    regr = os.path.join(fuzz, "regressions", "views")
    for d in (corpus, regr):
        os.makedirs(d, exist_ok=True)
    evlog = os.path.join(fuzz, "corpus", "evlog")
    for name in sorted(os.listdir(evlog)):
        shutil.copyfile(os.path.join(evlog, name), os.path.join(corpus, name))
    files = {
        os.path.join(corpus, "memory"): memory(),
        os.path.join(corpus, "recursion-200"): deep(200),
        os.path.join(regr, "func-id-e3000000"):
            patch_first_entry(memory(), 0xE3000000),
        os.path.join(regr, "recursion-1000"): deep(1000),
    }
    bad = bytearray(memory())
    # the FUNCS block follows the file header and the session block; its
    # first row's name gets a length past the 1 MiB limit
    name_len_at = 16 + len(session()) + 8 + 4 + 4 + 28
    struct.pack_into("<I", bad, name_len_at, 0x7FFFFFFF)
    files[os.path.join(regr, "funcs-malformed-string")] = bytes(bad)
    with open(os.path.join(evlog, "profile"), "rb") as f:
        files[os.path.join(regr, "profile-cut-inside")] = \
            profile_cut_inside(f.read())
    for path, data in files.items():
        with open(path, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
