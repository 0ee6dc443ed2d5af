// SPDX-License-Identifier: GPL-2.0-or-later
// A seed for the symbol-loader fuzzer (make-seeds.sh): a no_std Rust
// program, a few kB, with a trait impl, a generic and recursion.
#![no_std]
#![no_main]
use core::panic::PanicInfo;
#[panic_handler]
fn panic(_: &PanicInfo) -> ! { loop {} }
pub struct S(u32);
pub trait Shape { fn area(&self) -> u32; }
impl Shape for S { #[inline(never)] fn area(&self) -> u32 { self.0.wrapping_mul(3) } }
#[inline(never)] fn fib(n: u32) -> u32 { if n < 2 { n } else { fib(n - 1).wrapping_add(fib(n - 2)) } }
#[inline(never)] fn generic<T: Shape>(t: &T) -> u32 { t.area() + 1 }
#[no_mangle]
pub extern "C" fn _start() -> ! {
    let s = S(fib(10));
    let f: &dyn Shape = &s;
    let v = generic(&s) + f.area();
    unsafe { core::arch::asm!("syscall", in("rax") 60, in("rdi") v, options(noreturn)); }
}
