#!/bin/sh
# After `make install`: says whether the shell finds what was installed
# in BINDIR (rtrace, and cargo-rtrace for `cargo rtrace`), and if not,
# how to make it.
#
#   tools/path-note.sh BINDIR
set -eu
bin=$1
case ":$PATH:" in
*":$bin:"*)
    echo "rtrace: installed; rtrace and cargo rtrace run from $bin"
    exit 0 ;;
esac
echo "rtrace: installed in $bin, which is not on this shell's PATH yet:"
if [ "$bin" = "$HOME/.local/bin" ] && [ -f "$HOME/.profile" ] &&
   grep -q '\.local/bin' "$HOME/.profile"; then
    echo "rtrace: your ~/.profile adds it at your next login; for this shell:"
else
    echo "rtrace: add it in your shell's start-up file; for this shell:"
fi
echo "  export PATH=\"$bin:\$PATH\""
