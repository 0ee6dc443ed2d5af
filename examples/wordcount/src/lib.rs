//! wordcount: counts the words of a generated text.  Std only.
//!
//! The example crate of rtrace's workflows (docs/workflows/) and of the
//! `cargo rtrace` tests.  Every call count below follows from the
//! construction of the text alone, so the docs and the tests can check
//! rtrace's counts exactly without asking rtrace what they are.
//!
//! THE TEXT.  Line `i` (0, 1, 2...) is `reps(i)` phrases, reps(i) = 10 when
//! i % 50 == 49 (one long line in fifty), else 1.  A phrase is 16 words:
//! "The", 7 content words, "of", 7 content words, the last followed by a
//! full stop; so 2 stop words and 14 content words.  Content word number m,
//! counted over the whole text, is `vocab((m * 7919) % 2048)`: 7919 is
//! odd, so the first 2048 content words are all different.  Every
//! content word has 6 letters.
//!
//! CALLS OF `count_lines(n)`, with P = n + 9 * (n / 50) phrases
//! (integer division):
//!
//! | function                                  | calls              |
//! | ----------------------------------------- | ------------------ |
//! | wordcount::count_lines                    | 1                  |
//! | wordcount::corpus::line                   | n                  |
//! | wordcount::text::words                    | n                  |
//! | wordcount::text::normalize                | 16 P               |
//! | wordcount::text::is_stop_word             | 16 P               |
//! | wordcount::counter::Counter::new          | 1                  |
//! | wordcount::counter::Counter::add_line     | n                  |
//! | wordcount::counter::Counter::insert       | min(14 P, 2048)    |
//!
//! `Counter::top(k)` calls `wordcount::counter::intern` k times (k at most
//! the number of distinct words).  Nothing else of the crate is called:
//! the helpers are `#[inline(always)]`, and no closure is called.
//!
//! ALLOCATIONS, by construction (the default build, without `fast`): one
//! per call of `corpus::line` (the line), `text::words` (the vector),
//! `text::normalize` (the word; the 2 P stop words are freed at once),
//! `Counter::new` (room for 2048 words), `Counter::insert` (the word's
//! copy) and `intern` (6 bytes, never freed: the leak of the memory
//! workflow); two per call of `Counter::top`.  Nothing else allocates.
//!
//! Each function is `#[inline(never)]`, so each is a symbol to trace at
//! every optimisation level.

pub mod corpus;
pub mod counter;
pub mod text;

pub use counter::Counter;

/// Counts the words of the first `n` lines of the text.
#[inline(never)]
pub fn count_lines(n: usize) -> Counter {
    let mut counter = Counter::new();
    for i in 0..n {
        let line = corpus::line(i);
        let words = text::words(&line);
        counter.add_line(&words);
    }
    counter
}

#[cfg(test)]
mod tests {
    // The calls of each test are in its comment; tests/e2e/cargo_check.py
    // and the counting workflow check them with `--by test`.
    use super::*;

    // normalize 2
    #[test]
    fn normalize_strips_punctuation() {
        assert_eq!(text::normalize("The"), "the");
        assert_eq!(text::normalize("barkir."), "barkir");
    }

    // is_stop_word 3
    #[test]
    fn stop_words() {
        assert!(text::is_stop_word("the"));
        assert!(text::is_stop_word("of"));
        assert!(!text::is_stop_word("barkir"));
    }

    // line 1, words 1, normalize 16, is_stop_word 16
    #[test]
    fn a_line_is_one_phrase() {
        assert_eq!(text::words(&corpus::line(0)).len(), 14);
    }

    // line 1, words 1, normalize 160, is_stop_word 160
    #[test]
    fn line_49_is_long() {
        assert_eq!(text::words(&corpus::line(49)).len(), 140);
    }

    // count_lines(10), P = 10: count_lines 1, line 10, words 10,
    // normalize 160, is_stop_word 160, new 1, add_line 10, insert 140
    #[test]
    fn count_ten_lines() {
        let c = count_lines(10);
        assert_eq!(c.words(), 140);
        assert_eq!(c.distinct(), 140);
    }

    // count_lines(2), P = 2: count_lines 1, line 2, words 2, normalize 32,
    // is_stop_word 32, new 1, add_line 2, insert 28; then top 1, intern 3
    #[test]
    fn top_words_are_interned() {
        let top = count_lines(2).top(3);
        assert_eq!(top.len(), 3);
        for (w, n) in top {
            assert_eq!((w.len(), n), (6, 1));
        }
    }
}
