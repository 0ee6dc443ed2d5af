//! Words out of a line.

/// The content words of `line`, normalised: one allocation for the vector
/// and one per word (normalize), the stop words' freed at once.
#[inline(never)]
pub fn words(line: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(line.split(' ').count());
    for w in line.split(' ') {
        let w = normalize(w);
        if !is_stop_word(&w) {
            out.push(w);
        }
    }
    out
}

/// `w` in lower case, without punctuation.  One allocation (the words of
/// the text are never empty).
#[inline(never)]
pub fn normalize(w: &str) -> String {
    let mut s = String::with_capacity(w.len());
    for c in w.chars() {
        if c.is_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        }
    }
    s
}

/// Words that are not counted.  A few nanoseconds of work: the function
/// whose times the workflows tell you not to trust.
#[inline(never)]
pub fn is_stop_word(w: &str) -> bool {
    matches!(w, "the" | "of" | "a" | "and")
}
