// The program `make demo` traces: a small text indexer.  It generates N
// documents (N = argv[1], default 1000), tokenizes and indexes them,
// answers a few queries, and prints the most frequent words.  Std only.
// Each traced function does tens of microseconds of work per call, so its
// times stand well above what a breakpoint stop costs.
//
// Its maps hash with fixed keys, so every run makes the same calls: std's
// default hasher is seeded anew at each run, and the order a map gives
// its words decides how many comparisons top_words's sort makes.

use std::collections::HashMap;

/// SipHash with fixed keys: the same iteration order at every run.
pub type FixedState = std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>;

mod gen {
    const WORDS: &[&str] = &[
        "trace", "probe", "stack", "frame", "return", "entry", "thread",
        "signal", "count", "time", "rust", "crate", "panic", "unwind",
        "symbol", "breakpoint", "register", "kernel", "ptrace", "event",
    ];

    /// A document of about 300 words, different for each seed.
    #[inline(never)]
    pub fn document(seed: u64) -> String {
        let mut x = seed.wrapping_mul(0x9e3779b97f4a7c15) | 1;
        let mut doc = String::with_capacity(2400);
        for _ in 0..300 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            doc.push_str(WORDS[(x % WORDS.len() as u64) as usize]);
            doc.push(if x % 11 == 0 { '.' } else { ' ' });
        }
        doc
    }
}

mod text {
    /// Lower-cased words without punctuation.
    #[inline(never)]
    pub fn tokenize(doc: &str) -> Vec<String> {
        doc.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| w.to_lowercase())
            .collect()
    }

    /// FNV-1a over the document, to detect duplicates.
    #[inline(never)]
    pub fn checksum(doc: &str) -> u64 {
        doc.bytes().fold(0xcbf29ce484222325, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100000001b3)
        })
    }
}

mod index {
    use crate::FixedState;
    use std::collections::{HashMap, HashSet};

    #[derive(Default)]
    pub struct Index {
        pub postings: HashMap<String, Vec<u32>, FixedState>,
        pub seen: HashSet<u64, FixedState>,
    }

    impl Index {
        /// Adds a document; returns false for a duplicate.
        #[inline(never)]
        pub fn add(&mut self, id: u32, doc: &str) -> bool {
            if !self.seen.insert(crate::text::checksum(doc)) {
                return false;
            }
            for word in crate::text::tokenize(doc) {
                let list = self.postings.entry(word).or_default();
                if list.last() != Some(&id) {
                    list.push(id);
                }
            }
            true
        }

        /// Documents that contain every word of the query.
        #[inline(never)]
        pub fn query(&self, words: &[&str]) -> Vec<u32> {
            let mut lists: Vec<&Vec<u32>> = words
                .iter()
                .filter_map(|w| self.postings.get(*w))
                .collect();
            if lists.len() < words.len() {
                return Vec::new();
            }
            lists.sort_by_key(|l| l.len());
            lists[0]
                .iter()
                .copied()
                .filter(|id| lists[1..].iter().all(|l| l.binary_search(id).is_ok()))
                .collect()
        }
    }
}

#[inline(never)]
fn top_words(idx: &index::Index, k: usize) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = idx
        .postings
        .iter()
        .map(|(w, l)| (w.clone(), l.len()))
        .collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    counts.truncate(k);
    counts
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let mut idx = index::Index::default();
    let mut added = 0;
    for i in 0..n {
        added += idx.add(i as u32, &gen::document(i % 900)) as u32;
    }
    let queries: HashMap<&str, Vec<&str>> = [
        ("ptrace", vec!["ptrace", "signal"]),
        ("unwind", vec!["panic", "unwind", "frame"]),
    ]
    .into_iter()
    .collect();
    let mut names: Vec<_> = queries.keys().collect();
    names.sort();
    for name in names {
        println!("query {}: {} documents", name, idx.query(&queries[name]).len());
    }
    println!("indexed {} of {} documents; top words:", added, n);
    for (w, c) in top_words(&idx, 3) {
        println!("  {:<10} {}", w, c);
    }
}
