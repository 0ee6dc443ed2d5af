// SPDX-License-Identifier: GPL-2.0-or-later
//! A small log parser: generates LINES log lines (2,000 by default) from
//! a fixed seed, parses each with a few regexes and prints what it found.
//! The output depends only on the line count, so a traced run can be
//! checked against a native one.

use regex::Regex;
use std::collections::BTreeMap;

const LEVELS: [&str; 4] = ["INFO", "WARN", "ERROR", "DEBUG"];
const METHODS: [&str; 3] = ["GET", "POST", "DELETE"];
const PATHS: [&str; 4] = ["/api/users", "/api/orders", "/static/app.js", "/health"];
const USERS: [&str; 5] = ["alice", "bob", "carol", "dave", "eve"];

/// A linear congruential generator: the same lines on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[inline(never)]
fn make_line(rng: &mut Lcg, i: usize) -> String {
    let level = LEVELS[rng.next(LEVELS.len())];
    let mut line = format!(
        "2026-12-03T15:{:02}:{:02}.{:03}Z {:<5} [worker-{}] ",
        i / 60 % 60, i % 60, rng.next(1000), level, rng.next(8)
    );
    if rng.next(4) == 0 {
        line += &format!("cache miss key=k{} ratio=0.{}", rng.next(100), rng.next(100));
    } else {
        line += &format!(
            "{} {}/{} {} {}ms user={} ip=10.0.{}.{}",
            METHODS[rng.next(METHODS.len())], PATHS[rng.next(PATHS.len())],
            rng.next(500), [200, 201, 404, 500][rng.next(4)], rng.next(900),
            USERS[rng.next(USERS.len())], rng.next(256), rng.next(256)
        );
    }
    line
}

struct Parser {
    head: Regex,
    request: Regex,
    pair: Regex,
}

#[derive(Default)]
struct Summary {
    levels: BTreeMap<String, usize>,
    statuses: BTreeMap<u32, usize>,
    users: BTreeMap<String, usize>,
    millis: u64,
    pairs: usize,
    unparsed: usize,
}

impl Parser {
    fn new() -> Parser {
        Parser {
            head: Regex::new(r"^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2}\.\d{3})Z (\w+)\s+\[([\w-]+)\] (.*)$").unwrap(),
            request: Regex::new(r"^(GET|POST|DELETE) (/[\w/.]*) (\d{3}) (\d+)ms").unwrap(),
            pair: Regex::new(r"(\w+)=([\w.]+)").unwrap(),
        }
    }

    #[inline(never)]
    fn parse_line(&self, line: &str, sum: &mut Summary) {
        let head = match self.head.captures(line) {
            Some(c) => c,
            None => {
                sum.unparsed += 1;
                return;
            }
        };
        *sum.levels.entry(head[3].to_string()).or_default() += 1;
        let rest = head.get(5).map_or("", |m| m.as_str());
        if let Some(req) = self.request.captures(rest) {
            *sum.statuses.entry(req[3].parse().unwrap()).or_default() += 1;
            sum.millis += req[4].parse::<u64>().unwrap();
        }
        for kv in self.pair.captures_iter(rest) {
            sum.pairs += 1;
            if &kv[1] == "user" {
                *sum.users.entry(kv[2].to_string()).or_default() += 1;
            }
        }
    }
}

fn main() {
    let lines: usize = std::env::args().nth(1).map_or(2000, |a| a.parse().expect("LINES"));
    let mut rng = Lcg(42);
    let parser = Parser::new();
    let mut sum = Summary::default();
    for i in 0..lines {
        let line = make_line(&mut rng, i);
        parser.parse_line(&line, &mut sum);
    }
    println!("lines {} unparsed {} pairs {} millis {}", lines, sum.unparsed, sum.pairs, sum.millis);
    for (k, v) in &sum.levels {
        println!("level {} {}", k, v);
    }
    for (k, v) in &sum.statuses {
        println!("status {} {}", k, v);
    }
    for (k, v) in &sum.users {
        println!("user {} {}", k, v);
    }
}
