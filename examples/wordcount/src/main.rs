//! wordcount [LINES] [TOP]: counts the words of the first LINES lines of
//! the generated text (default 200) and prints the TOP most frequent
//! (default 5).  The calls it makes are those of `count_lines(LINES)`
//! (see src/lib.rs) plus one `Counter::top(TOP)`.

use std::process::ExitCode;

fn arg(i: usize, default: usize) -> Result<usize, String> {
    match std::env::args().nth(i) {
        None => Ok(default),
        Some(a) => a.parse().map_err(|_| format!("wordcount: not a number: {}", a)),
    }
}

fn main() -> ExitCode {
    let (lines, top) = match (arg(1, 200), arg(2, 5)) {
        (Ok(l), Ok(t)) => (l, t),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{}", e);
            return ExitCode::from(2);
        }
    };
    let counter = wordcount::count_lines(lines);
    println!(
        "{} lines: {} words, {} distinct",
        lines,
        counter.words(),
        counter.distinct()
    );
    for (word, n) in counter.top(top) {
        println!("  {:<8} {}", word, n);
    }
    ExitCode::SUCCESS
}
