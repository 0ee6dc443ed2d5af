//! Word counts.  The default build finds a word by scanning every word
//! seen so far, inside add_line: the hot spot of the CPU workflow.  The
//! `fast` feature is its fix, an index by hash; both make the same calls.

use std::cmp::Reverse;
#[cfg(feature = "fast")]
use std::collections::HashMap;

use crate::corpus::VOCABULARY;

pub struct Counter {
    entries: Vec<(String, u64)>,
    #[cfg(feature = "fast")]
    index: HashMap<String, usize>,
    words: u64,
}

impl Counter {
    /// An empty counter with room for the whole vocabulary: one allocation
    /// (two with `fast`), and none while words are added.
    #[inline(never)]
    pub fn new() -> Counter {
        Counter {
            entries: Vec::with_capacity(VOCABULARY),
            #[cfg(feature = "fast")]
            index: HashMap::with_capacity(VOCABULARY),
            words: 0,
        }
    }

    /// Counts the words of one line.
    #[inline(never)]
    pub fn add_line(&mut self, words: &[String]) {
        for w in words {
            self.words += 1;
            match self.find(w) {
                Some(i) => self.entries[i].1 += 1,
                None => self.insert(w),
            }
        }
    }

    /// Where `w` is: a scan of every word seen so far, each compared
    /// without regard to case, letter by letter.  Inlined into add_line at
    /// every optimisation level: its time is add_line's own.
    #[cfg(not(feature = "fast"))]
    #[inline(always)]
    fn find(&self, w: &str) -> Option<usize> {
        let mut i = 0;
        while i < self.entries.len() {
            if same_word(&self.entries[i].0, w) {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// The fix: the words are lower case already (normalize), so an
    /// exact match through a hash index finds them.
    #[cfg(feature = "fast")]
    #[inline(always)]
    fn find(&self, w: &str) -> Option<usize> {
        self.index.get(w).copied()
    }

    /// A word seen for the first time: one allocation, its copy (two with
    /// `fast`: the index keeps one too).
    #[inline(never)]
    pub fn insert(&mut self, w: &str) {
        #[cfg(feature = "fast")]
        self.index.insert(w.to_owned(), self.entries.len());
        self.entries.push((w.to_owned(), 1));
    }

    /// Content words counted.
    #[inline(always)]
    pub fn words(&self) -> u64 {
        self.words
    }

    /// Distinct content words.
    #[inline(always)]
    pub fn distinct(&self) -> usize {
        self.entries.len()
    }

    /// The `k` most frequent words (ties by name), interned: the words
    /// live as long as the program.  Two allocations, and intern's.
    #[inline(never)]
    pub fn top(&self, k: usize) -> Vec<(&'static str, u64)> {
        let mut order: Vec<(Reverse<u64>, &str)> = Vec::with_capacity(self.entries.len());
        for (w, n) in &self.entries {
            order.push((Reverse(*n), w.as_str()));
        }
        order.sort_unstable();
        let k = k.min(order.len());
        let mut out = Vec::with_capacity(k);
        for &(Reverse(n), w) in &order[..k] {
            out.push((intern(w), n));
        }
        out
    }
}

/// Whether `a` and `b` are one word in any case (Unicode lower case).
#[cfg(not(feature = "fast"))]
#[inline(always)]
fn same_word(a: &str, b: &str) -> bool {
    // no allocation, and no closure (each would be a function of this
    // crate to trace in an unoptimised build)
    a.chars()
        .flat_map(char::to_lowercase)
        .eq(b.chars().flat_map(char::to_lowercase))
}

impl Default for Counter {
    fn default() -> Self {
        Counter::new()
    }
}

/// A copy of `w` that is never freed: the leak that the memory workflow
/// finds (one allocation of `w.len()` bytes per call).
#[inline(never)]
pub fn intern(w: &str) -> &'static str {
    Box::leak(w.to_owned().into_boxed_str())
}
