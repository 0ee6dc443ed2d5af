//! The generated text (see the crate's documentation for its shape).

const CONSONANTS: &[u8; 8] = b"bdgklmpt";
const VOWELS: &[u8; 4] = b"aeio";
const ENDINGS: &[u8; 2] = b"nr";

/// Words in a phrase, stop words included.
pub const PHRASE_WORDS: usize = 16;
/// Content words in a phrase.
pub const PHRASE_CONTENT: usize = 14;
/// Distinct content words.
pub const VOCABULARY: usize = 2048;

/// Phrases in line `i`: one line in fifty is ten times longer.
#[inline(always)]
pub fn reps(i: usize) -> usize {
    if i % 50 == 49 {
        10
    } else {
        1
    }
}

/// Phrases before line `i`.
#[inline(always)]
fn phrases_before(i: usize) -> usize {
    i + 9 * (i / 50)
}

/// Appends content word `k` (0..2048): two syllables of three letters,
/// syllable `s` (0..64) spelling its number in its letters.
#[inline(always)]
fn push_vocab(out: &mut String, k: usize) {
    for s in [k % 64, k / 64] {
        out.push(CONSONANTS[s % 8] as char);
        out.push(VOWELS[(s / 8) % 4] as char);
        out.push(ENDINGS[s / 32] as char);
    }
}

/// Line `i` of the text.  One allocation: its exact size is known first.
#[inline(never)]
pub fn line(i: usize) -> String {
    let phrases = reps(i);
    // per phrase: "The " + 7 * "xxxxxx " + "of " + 7 * "xxxxxx ", the
    // last space a full stop; a space between phrases
    let mut out = String::with_capacity(phrases * (4 + 3 + 14 * 7 + 1) - 1);
    let mut m = phrases_before(i) * PHRASE_CONTENT;
    for p in 0..phrases {
        if p > 0 {
            out.push(' ');
        }
        for j in 0..PHRASE_CONTENT {
            out.push_str(match j {
                0 => "The ",
                7 => "of ",
                _ => "",
            });
            push_vocab(&mut out, (m * 7919) % VOCABULARY);
            m += 1;
            out.push(if j + 1 == PHRASE_CONTENT { '.' } else { ' ' });
        }
    }
    debug_assert_eq!(out.len(), out.capacity());
    out
}
