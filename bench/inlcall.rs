// SPDX-License-Identifier: GPL-2.0-or-later
//
// inlcall: the same small function called out of line and inlined, for
// bench/inlined.py (what an inlined call costs traced).
//
// Usage: inlcall outl|inl N
//
//   outl: N calls of inlcall::outl (#[inline(never)])
//   inl:  N calls of inlcall::inl (#[inline(always)]), inlined into the
//         loop of run_inl: one instance, left only through its end
//
// Both do the same work: a few loads and stores through black_box.
use std::hint::black_box;

#[inline(never)]
fn outl(x: u64) -> u64 {
    black_box(black_box(x).wrapping_mul(3) ^ 0x55)
}

#[inline(always)]
fn inl(x: u64) -> u64 {
    black_box(black_box(x).wrapping_mul(3) ^ 0x55)
}

#[inline(never)]
fn run_outl(n: u64) -> u64 {
    let mut s = 0u64;
    for i in 0..n {
        s = s.wrapping_add(outl(black_box(i)));
        black_box(s);
    }
    s
}

#[inline(never)]
fn run_inl(n: u64) -> u64 {
    let mut s = 0u64;
    for i in 0..n {
        s = s.wrapping_add(inl(black_box(i)));
        black_box(s);
    }
    s
}

fn main() {
    let mut a = std::env::args().skip(1);
    let mode = a.next().expect("usage: inlcall outl|inl N");
    let n: u64 = a.next().and_then(|s| s.parse().ok()).expect("N");
    let s = match mode.as_str() {
        "outl" => run_outl(n),
        "inl" => run_inl(n),
        _ => panic!("mode is outl or inl"),
    };
    black_box(s);
    println!("COUNT inlcall::{} {}", mode, n);
}
