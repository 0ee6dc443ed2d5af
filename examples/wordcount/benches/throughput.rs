//! A bench without a harness (`cargo bench` runs its main): counts the
//! first 200 lines three times and prints the best time.  Calls: three
//! times those of `count_lines(200)` (see src/lib.rs).

use std::time::Instant;

fn main() {
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let c = wordcount::count_lines(200);
        std::hint::black_box(c.words());
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("count_lines(200): best of 3: {:.3} ms", best * 1e3);
}
