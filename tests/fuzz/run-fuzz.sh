#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Runs the libFuzzer harnesses of a fuzz build (make fuzz):
#
#   tests/fuzz/run-fuzz.sh BUILD_DIR [SECONDS [HARNESS...]]
#
# Each harness runs SECONDS (default 60) on one CPU, as many at a time as
# there are CPUs (FUZZ_JOBS to change it), starting from its seed corpus,
# its regressions and what earlier runs in BUILD_DIR found
# (BUILD_DIR/fuzz/corpus/<name>).  Logs go to BUILD_DIR/fuzz/<name>.log,
# crashing inputs to BUILD_DIR/fuzz/artifacts/<name>/.  Exits 1 if any
# harness found a crash, a leak, a timeout or an out-of-memory, after
# saying how to replay the input.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: run-fuzz.sh BUILD_DIR [SECONDS [HARNESS...]]}" && pwd)
secs=${2:-60}
[ $# -ge 2 ] && shift 2 || shift $#
harnesses=${*:-$(cd "$here" && ls fuzz-*.c | sed -n 's/^fuzz-\(.*\)\.c$/\1/p' |
                  grep -v '^util$')}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
out=$build/fuzz

run_one() {
    h=$1
    bin=$build/tests/fuzz/fuzz-$h
    if [ ! -x "$bin" ]; then
        echo "fuzz: $h: no $bin (skipped: other architecture?)"
        return 0
    fi
    mkdir -p "$out/corpus/$h" "$out/artifacts/$h"
    dict=""
    [ -f "$here/$h.dict" ] && dict="-dict=$here/$h.dict"
    # <name>.options: more libFuzzer flags (a -max_len that fits the input)
    opts=$(cat "$here/$h.options" 2>/dev/null || true)
    # -close_fd_mask=2: the modules' error lines (one per bad input) would
    # cost more than the inputs; libFuzzer and the sanitizers report on a
    # copy of stderr.  Timeouts: no input may take a second.
    t0=$(date +%s)
    rc=0
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -close_fd_mask=2 -print_final_stats=1 -max_len=65536 $dict $opts \
        -artifact_prefix="$out/artifacts/$h/" \
        "$out/corpus/$h" "$here/corpus/$h" "$here/regressions/$h" \
        >"$out/$h.log" 2>&1 || rc=$?
    echo $(( $(date +%s) - t0 )) >"$out/$h.secs"
    return $rc
}

mkdir -p "$out"
start=$(date +%s)
pids=""
failed=""
for h in $harnesses; do
    # at most $jobs at once
    while [ "$(echo $pids | wc -w)" -ge "$jobs" ]; do
        set -- $pids
        wait "$1" || failed="$failed $(cat "$out/$1.name")"
        shift
        pids="$*"
    done
    run_one "$h" &
    echo "$h" >"$out/$!.name"
    pids="$pids $!"
    echo "fuzz: $h: ${secs}s"
done
for p in $pids; do
    wait "$p" || failed="$failed $(cat "$out/$p.name")"
done
rm -f "$out"/*.name

for h in $harnesses; do
    [ -f "$out/$h.log" ] || continue
    # the seconds of every run so far, for the record
    [ -f "$out/$h.secs" ] && echo "$(date +%F\ %T) $h $(cat "$out/$h.secs")" \
        >>"$out/seconds.log"
    stats=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$h.log")
    cov=$(grep -o 'cov: [0-9]*' "$out/$h.log" | tail -1)
    echo "fuzz: $h: $(cat "$out/$h.secs" 2>/dev/null || echo ?)s, ${stats:-?} runs, ${cov:-cov: ?}," \
         "corpus $(ls "$out/corpus/$h" | wc -l) new + $(ls "$here/corpus/$h" | wc -l) seeds"
done
echo "fuzz: $(( $(date +%s) - start ))s in all"
if [ -n "$failed" ]; then
    for h in $failed; do
        echo "fuzz: $h FAILED; the end of $out/$h.log:" >&2
        tail -n 40 "$out/$h.log" >&2
        for a in "$out/artifacts/$h"/*; do
            [ -f "$a" ] || continue
            echo "fuzz: replay: $build/tests/fuzz/fuzz-$h $a" >&2
            echo "fuzz: keep it: cp $a $here/regressions/$h/" >&2
        done
    done
    exit 1
fi
