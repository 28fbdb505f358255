//! Python's line handling as the companion proof script uses it: `open()` in text mode
//! (universal newlines), `str.splitlines()`, and `difflib.unified_diff(a, b, n=0)`.
//!
//! The proof counts "changed line(s)" with difflib, whose `SequenceMatcher` (Ratcliff and
//! Obershelp, with the "popular element" heuristic for sequences of 200 items or more)
//! can pair lines differently from the Myers diff the editor shows. So the proof gets its
//! own copy of difflib's algorithm, followed line by line from CPython 3.11's
//! `Lib/difflib.py`, and the editor keeps `similar`.

use std::collections::HashMap;

/// What `open(path, encoding="utf-8").read()` gives for a file's text: `\r\n` and a lone
/// `\r` read as `\n`.
pub fn universal_newlines(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// `str.splitlines()`: lines without their ends, split at every line boundary Python
/// knows (`\n`, `\r`, `\r\n`, `\v`, `\f`, `\x1c`–`\x1e`, `\x85`, U+2028, U+2029).
pub fn splitlines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let boundary = matches!(
            c,
            '\n' | '\r'
                | '\u{b}'
                | '\u{c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if boundary {
            lines.push(&text[start..at]);
            let mut next = at + c.len_utf8();
            if c == '\r' && chars.peek().is_some_and(|&(_, n)| n == '\n') {
                chars.next();
                next += 1;
            }
            start = next;
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// One matching block: `a[a_start..a_start + size] == b[b_start..b_start + size]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Block {
    a_start: usize,
    b_start: usize,
    size: usize,
}

/// `SequenceMatcher(None, a, b)` with `autojunk=True`.
struct Matcher<'a, 's> {
    a: &'a [&'s str],
    b: &'a [&'s str],
    /// Each line of `b` to the places it occurs, popular lines left out.
    b2j: HashMap<&'s str, Vec<usize>>,
}

impl<'a, 's> Matcher<'a, 's> {
    fn new(a: &'a [&'s str], b: &'a [&'s str]) -> Self {
        let mut b2j: HashMap<&'s str, Vec<usize>> = HashMap::new();
        for (j, line) in b.iter().enumerate() {
            b2j.entry(line).or_default().push(j);
        }
        // `__chain_b`: with 200 lines or more, a line that occurs in more than 1% of them
        // (plus one) is "popular" and takes no part in finding the longest match.
        let n = b.len();
        if n >= 200 {
            let ntest = n / 100 + 1;
            b2j.retain(|_, places| places.len() <= ntest);
        }
        Matcher { a, b, b2j }
    }

    /// `find_longest_match(alo, ahi, blo, bhi)` (no junk function, so only the
    /// extension over popular lines remains of the junk handling).
    fn find_longest_match(&self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> Block {
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0);
        let mut j2len: HashMap<usize, usize> = HashMap::new();
        for i in alo..ahi {
            let mut new_j2len: HashMap<usize, usize> = HashMap::new();
            if let Some(places) = self.b2j.get(self.a[i]) {
                for &j in places {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = j.checked_sub(1).and_then(|p| j2len.get(&p)).copied().unwrap_or(0) + 1;
                    new_j2len.insert(j, k);
                    if k > bestsize {
                        (besti, bestj, bestsize) = (i + 1 - k, j + 1 - k, k);
                    }
                }
            }
            j2len = new_j2len;
        }
        while besti > alo && bestj > blo && self.a[besti - 1] == self.b[bestj - 1] {
            (besti, bestj, bestsize) = (besti - 1, bestj - 1, bestsize + 1);
        }
        while besti + bestsize < ahi
            && bestj + bestsize < bhi
            && self.a[besti + bestsize] == self.b[bestj + bestsize]
        {
            bestsize += 1;
        }
        Block { a_start: besti, b_start: bestj, size: bestsize }
    }

    /// `get_matching_blocks()`, adjacent blocks merged, without the closing sentinel.
    fn matching_blocks(&self) -> Vec<Block> {
        let mut queue = vec![(0, self.a.len(), 0, self.b.len())];
        let mut blocks = Vec::new();
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let found = self.find_longest_match(alo, ahi, blo, bhi);
            let Block { a_start: i, b_start: j, size: k } = found;
            if k > 0 {
                blocks.push(found);
                if alo < i && blo < j {
                    queue.push((alo, i, blo, j));
                }
                if i + k < ahi && j + k < bhi {
                    queue.push((i + k, ahi, j + k, bhi));
                }
            }
        }
        crate::order::sort(&mut blocks);
        let mut merged: Vec<Block> = Vec::new();
        for block in blocks {
            match merged.last_mut() {
                Some(last)
                    if last.a_start + last.size == block.a_start
                        && last.b_start + last.size == block.b_start =>
                {
                    last.size += block.size;
                }
                _ => merged.push(block),
            }
        }
        merged
    }
}

/// The `-` and `+` lines of `difflib.unified_diff(a, b, n=0, lineterm="")`, in order,
/// each with its mark: for every changed stretch, the removed lines, then the added
/// ones. The `---`/`+++`/`@@` header lines are not included.
pub fn unified_changes<'s>(a: &[&'s str], b: &[&'s str]) -> Vec<(char, &'s str)> {
    let matcher = Matcher::new(a, b);
    let mut blocks = matcher.matching_blocks();
    blocks.push(Block { a_start: a.len(), b_start: b.len(), size: 0 });
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    for block in blocks {
        out.extend(a[i..block.a_start].iter().map(|line| ('-', *line)));
        out.extend(b[j..block.b_start].iter().map(|line| ('+', *line)));
        (i, j) = (block.a_start + block.size, block.b_start + block.size);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(a: &str, b: &str) -> Vec<String> {
        let (a, b) = (splitlines(a), splitlines(b));
        unified_changes(&a, &b).into_iter().map(|(mark, line)| format!("{mark}{line}")).collect()
    }

    #[test]
    fn identical_texts_have_no_changes() {
        assert!(changes("a\nb\n", "a\nb").is_empty());
    }

    #[test]
    fn a_replaced_line_reads_as_its_removal_then_its_addition() {
        assert_eq!(changes("a\nb\nc\n", "a\nB\nc\n"), ["-b", "+B"]);
    }

    #[test]
    fn removals_come_before_additions_within_one_stretch() {
        // CPython: list(difflib.unified_diff(['x','a','b','y'], ['x','c','y'], n=0, lineterm=''))
        assert_eq!(changes("x\na\nb\ny", "x\nc\ny"), ["-a", "-b", "+c"]);
    }

    #[test]
    fn a_moved_line_is_paired_as_difflib_pairs_it() {
        // CPython 3.11: ['-a', '+a'] around the longest common run "b c d".
        assert_eq!(changes("a\nb\nc\nd\n", "b\nc\nd\na\n"), ["-a", "+a"]);
    }

    #[test]
    fn splitlines_knows_pythons_line_boundaries() {
        assert_eq!(splitlines("a\r\nb\rc\u{2028}d\u{b}e\n"), ["a", "b", "c", "d", "e"]);
        assert_eq!(splitlines(""), Vec::<&str>::new());
        assert_eq!(splitlines("\n"), [""]);
    }

    #[test]
    fn universal_newlines_read_crlf_and_cr_as_lf() {
        assert_eq!(universal_newlines("a\r\nb\rc\n"), "a\nb\nc\n");
    }
}
