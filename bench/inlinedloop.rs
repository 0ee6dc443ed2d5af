// SPDX-License-Identifier: GPL-2.0-or-later
//
// inlinedloop: one small function called N times, inlined or not.
//
// Usage: inlinedloop in|out N
//
// `out` calls mix() N times out of line (#[inline(never)]); `in` calls
// mix_inlined(), the same body, which the compiler inlines into the loop:
// the calls rtrace counts at the inlined instance's entry.  Each call's
// input goes through black_box, so the loop can be neither vectorised nor
// folded: N iterations are N calls, one instance each.  The program
// prints the calls it made, for the bench to check rtrace's count.

use std::hint::black_box;

#[inline(never)]
fn mix(x: u64) -> u64 {
    x.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (x >> 7)
}

#[inline(always)]
fn mix_inlined(x: u64) -> u64 {
    x.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (x >> 7)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let inlined = args.get(1).map(|s| s == "in").unwrap_or(false);
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let mut acc: u64 = 0;
    for i in 0..n {
        let x = black_box(i);
        acc = acc.wrapping_add(if inlined { mix_inlined(x) } else { mix(x) });
        black_box(acc);
    }
    println!("COUNT inlinedloop::{} {}", if inlined { "mix_inlined" } else { "mix" }, n);
    println!("sum {:#x}", acc);
}
