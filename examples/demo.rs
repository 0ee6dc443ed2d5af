// The program `make demo` traces: a tiny arithmetic-expression calculator.
// It tokenizes, parses and evaluates N generated expressions (N = argv[1],
// default 1000) and prints the sum of their values.  Std only.

mod lex {
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Token {
        Num(i64),
        Plus,
        Minus,
        Star,
        LParen,
        RParen,
    }

    #[inline(never)]
    pub fn number(bytes: &[u8], pos: &mut usize) -> i64 {
        let mut v = 0i64;
        while *pos < bytes.len() && bytes[*pos].is_ascii_digit() {
            v = v * 10 + (bytes[*pos] - b'0') as i64;
            *pos += 1;
        }
        v
    }

    #[inline(never)]
    pub fn token(bytes: &[u8], pos: &mut usize) -> Option<Token> {
        while *pos < bytes.len() && bytes[*pos] == b' ' {
            *pos += 1;
        }
        let c = *bytes.get(*pos)?;
        if c.is_ascii_digit() {
            return Some(Token::Num(number(bytes, pos)));
        }
        *pos += 1;
        Some(match c {
            b'+' => Token::Plus,
            b'-' => Token::Minus,
            b'*' => Token::Star,
            b'(' => Token::LParen,
            _ => Token::RParen,
        })
    }

    #[inline(never)]
    pub fn tokenize(src: &str) -> Vec<Token> {
        let (bytes, mut pos, mut out) = (src.as_bytes(), 0, Vec::new());
        while let Some(t) = token(bytes, &mut pos) {
            out.push(t);
        }
        out
    }
}

mod parse {
    use crate::lex::Token;

    pub struct Parser<'a> {
        toks: &'a [Token],
        at: usize,
    }

    impl<'a> Parser<'a> {
        pub fn new(toks: &'a [Token]) -> Self {
            Parser { toks, at: 0 }
        }

        // expr := term (('+' | '-') term)*
        #[inline(never)]
        pub fn expr(&mut self) -> i64 {
            let mut v = self.term();
            while let Some(&t) = self.toks.get(self.at) {
                match t {
                    Token::Plus => { self.at += 1; v += self.term(); }
                    Token::Minus => { self.at += 1; v -= self.term(); }
                    _ => break,
                }
            }
            v
        }

        // term := atom ('*' atom)*
        #[inline(never)]
        pub fn term(&mut self) -> i64 {
            let mut v = self.atom();
            while self.toks.get(self.at) == Some(&Token::Star) {
                self.at += 1;
                v = v.wrapping_mul(self.atom());
            }
            v
        }

        // atom := number | '(' expr ')'
        #[inline(never)]
        pub fn atom(&mut self) -> i64 {
            let t = self.toks[self.at];
            self.at += 1;
            match t {
                Token::Num(n) => n,
                Token::LParen => {
                    let v = self.expr();
                    self.at += 1; // ')'
                    v
                }
                _ => 0,
            }
        }
    }
}

#[inline(never)]
fn generate(i: u64) -> String {
    format!("{} + {} * ({} - {})", i % 97, i % 13 + 1, i % 7 + 10, i % 5)
}

#[inline(never)]
fn evaluate(src: &str) -> i64 {
    let toks = lex::tokenize(src);
    parse::Parser::new(&toks).expr()
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let sum: i64 = (0..n).map(|i| evaluate(&generate(i))).sum();
    println!("evaluated {} expressions, sum = {}", n, sum);
}
