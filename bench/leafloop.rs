// SPDX-License-Identifier: GPL-2.0-or-later
//
// leafloop: the hot loop of the per-hit benchmark.
//
// Usage: leafloop [N]   (default 100000)
//
// main calls leaf() N times in a loop and prints the sum of the results
// (so that no call can be optimised away).  leaf is a handful of register
// instructions with a single `ret` and no stack frame: traced, each call
// is exactly two breakpoint stops (entry and return) and next to nothing
// else, so the time per call is the tracer's cost per hit, twice.
//
// bench/run builds it with rustc -C opt-level=3 and runs it with N and
// with 0: the difference of the two wall times, divided by N, is the cost
// of one call, free of start-up and exit.

use std::hint::black_box;

#[inline(never)]
fn leaf(x: u64) -> u64 {
    x.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (x >> 7)
}

fn main() {
    let n: u64 = match std::env::args().nth(1) {
        Some(s) => s.parse().expect("N must be a non-negative integer"),
        None => 100_000,
    };
    let mut acc: u64 = 0;
    for i in 0..n {
        acc = acc.wrapping_add(leaf(black_box(i)));
    }
    println!("leafloop: {} calls, sum {:#x}", n, black_box(acc));
}
