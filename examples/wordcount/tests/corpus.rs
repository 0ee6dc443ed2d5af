//! An integration test: a second test binary for `cargo rtrace test`.
//!
//! corpus_of_50_lines: count_lines(50), P = 50 + 9 * 1 = 59 phrases (line
//! 49 is long): count_lines 1, line 50, words 50, normalize 944,
//! is_stop_word 944, new 1, add_line 50, insert 826 (14 P, all different).

#[test]
fn corpus_of_50_lines() {
    let c = wordcount::count_lines(50);
    assert_eq!(c.words(), 14 * 59);
    assert_eq!(c.distinct(), 14 * 59);
}
