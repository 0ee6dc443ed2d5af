#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Writes the seed corpora of the fuzz harnesses into tests/fuzz/corpus/:
#
#   tests/fuzz/make-seeds.sh BUILD_DIR
#
# BUILD_DIR is any configured build (for the evlog seed writer).  The seeds
# are checked in; run this again after a change to the log format, to the
# seed programs or to the arch harness's input layout.  Every file stays
# far below 100 KB: the ELF seeds are freestanding programs, -Os, without
# libc, linked without page padding.
#  corpus/evlog/        logs written by rtrace's own writer (seed-evlog.c)
#  corpus/symbols/      seed-elf.c and seed-elf.rs, built several ways:
#                       static, static-pie with DWARF lines, dynamic with an
#                       import, .dynsym only, stripped, debuglink; legacy
#                       and v0 Rust manglings
#  corpus/arch-x86_64/  24-byte header (code address, slot offset, register
#                       seed) + instructions of every class, and code
#                       slices of the ELF seeds
#  corpus/match/        hand-written (name, raw, globs); not generated
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: make-seeds.sh BUILD_DIR}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PATH=$HOME/.cargo/bin:$PATH

# ---- evlog ------------------------------------------------------------------
cmake --build "$build" --target fuzz-seed-evlog >/dev/null
rm -f "$here"/corpus/evlog/*
"$build/tests/fuzz/fuzz-seed-evlog" "$here/corpus/evlog"

# ---- symbols ----------------------------------------------------------------
sym=$here/corpus/symbols
rm -f "$sym"/*
lean="-Os -fno-asynchronous-unwind-tables -fno-stack-protector
      -fcf-protection=none -nostartfiles -Wl,--build-id=none
      -Wl,-z,noseparate-code -Wl,-z,max-page-size=4096 -Wl,--no-eh-frame-hdr"
cc=${CC:-gcc}
# shellcheck disable=SC2086
{
$cc $lean -Wl,-n -nostdlib -static -o "$sym/c-static" "$here/seed-elf.c"
$cc $lean -fPIE -g1 -nostdlib -static-pie -o "$sym/c-static-pie-lines" \
    "$here/seed-elf.c"
$cc $lean -DEXEC -fPIE -pie -nostdlib -o "$sym/c-dyn-exec" "$here/seed-elf.c" -lc
$cc $lean -fPIE -pie -rdynamic -nostdlib -o "$tmp/dynsym" "$here/seed-elf.c"
strip --strip-all -o "$sym/c-dynsym-only" "$tmp/dynsym"
strip --strip-all -o "$sym/c-stripped" "$sym/c-static"
$cc $lean -Wl,-n -g -nostdlib -static -o "$tmp/debug" "$here/seed-elf.c"
objcopy --only-keep-debug "$tmp/debug" "$tmp/c-debug.debug"
(cd "$tmp" && objcopy --strip-debug --add-gnu-debuglink=c-debug.debug \
    debug "$sym/c-debuglink")
}
if command -v rustc >/dev/null 2>&1; then
    rf="-C panic=abort -C link-arg=-nostartfiles -C link-arg=-nostdlib
        -C link-arg=-Wl,--build-id=none -C link-arg=-Wl,-n"
    # shellcheck disable=SC2086
    rustc -C opt-level=s $rf -C relocation-model=static \
        -C link-arg=-static -o "$sym/rust-legacy" "$here/seed-elf.rs"
    # shellcheck disable=SC2086
    rustc -C opt-level=s $rf -C relocation-model=pie \
        -C link-arg=-static-pie -C symbol-mangling-version=v0 \
        -C debuginfo=1 -o "$sym/rust-v0-pie-lines" "$here/seed-elf.rs"
else
    echo "make-seeds: no rustc: no Rust seeds" >&2
fi

# ---- arch-x86_64 ------------------------------------------------------------
rm -f "$here"/corpus/arch-x86_64/*
for f in "$sym/c-static" "$sym/rust-legacy"; do
    [ -f "$f" ] && objcopy -O binary --only-section=.text "$f" \
        "$tmp/$(basename "$f").text"
done
python3 - "$here/corpus/arch-x86_64" "$tmp" <<'PY'
import os, struct, sys

out, tmp = sys.argv[1], sys.argv[2]
CODE = 0x555555561000
NEAR = 0x40000000                 # slot 1 GiB above the code
FAR = 0xff007ffff7ff0000          # top byte 0xff: the slot is this address

def seed(name, code, off=NEAR, regs=0x0123456789abcdef, addr=CODE):
    with open(os.path.join(out, name), "wb") as f:
        f.write(struct.pack("<QQQ", addr, off, regs) + bytes(code))

h = bytes.fromhex
classes = {
    "plain": "4889d8" "0f05" "f30f1efa",              # mov, syscall, endbr64
    "rip-relative": "488b0510000000" "8d3d00100000"   # mov, lea (%rip)
                    "66813de0ffffff3412" "c5f8100500010000",
    "addr32-rip": "678b0510000000",
    "ret": "c3" "c21000" "f3c3",                      # ret, ret $16, repz ret
    "jmp": "e900010000" "f2ebf0" "eb00",
    "jcc": "0f8e00020000" "7510" "7000" "7f00" "0f8a00000000",
    "jmp-reg": "41ffe3" "3effe0" "ffe4",
    "jmp-mem": "ff2500100000" "ff642408" "41ff2424",
    "call": "e800010000" "e8fbffffff" "666648e800010000",
    "call-reg": "ffd0" "41ffd4" "3effd1" "ffd4",
    "call-mem": "ff1500200000" "41ff542408" "ff54d810" "ff542408" "ff1424"
                "ff54247c" "ff5424f8" "ff54c408"
                "48ff9424f4ffff7f" "ff9424fcffff7f",
    "branch-other": "e2fe" "e310" "c7f800010000" "66e90001" "cc" "cd80",
}
for name, code in classes.items():
    seed(name, h(code))
seed("rip-relative-far", h(classes["rip-relative"]), off=FAR)
seed("call-far", h(classes["call"]) + h(classes["call-mem"]), off=FAR)
seed("jcc-flags", h(classes["jcc"]), regs=0xffffffffffffffff)
seed("wrap-top", h("e800010000" "c3"), addr=0xfffffffffffffff8)
seed("empty", b"")
for f in sorted(os.listdir(tmp)):
    if f.endswith(".text"):
        text = open(os.path.join(tmp, f), "rb").read()
        seed(f[:-5] + "-text", text[:256])
PY
chmod 644 "$sym"/*
ls -l "$here"/corpus/*/ | awk '$5 > 100000 { print "make-seeds: too big:", $0; bad=1 } END { exit bad }'
echo "make-seeds: $(ls "$here"/corpus/evlog | wc -l) evlog," \
     "$(ls "$sym" | wc -l) symbols," \
     "$(ls "$here"/corpus/arch-x86_64 | wc -l) arch-x86_64 seeds"
