//! Inputs built to make a careless syntax highlighter quadratic: unmatched openers each
//! searching to the end of a long line, deep nesting, endless strings. Shared by the
//! `highlight_growth` benchmark, which times how their cost grows, and by the integration
//! tests, which check the highlighter's promises on them
//! (`#[path = "…/benches/support/pathological.rs"] mod pathological;`).

/// Every pathological input of about `bytes` bytes, each with a name for reports.
pub fn pathological(bytes: usize) -> Vec<(&'static str, String)> {
    let repeat = |unit: &str| unit.repeat(bytes / unit.len());
    vec![
        ("brackets", repeat("[")),
        ("bracket then paren", repeat("[a](")),
        ("closed brackets", repeat("[a]")),
        ("backtick runs", backtick_runs(bytes)),
        ("stars", repeat("*a ")),
        ("underscores", repeat("_a_ ")),
        ("at signs", repeat("@skill.")),
        ("flow", repeat("{[")),
        ("colons", repeat("a:")),
        ("dashes", repeat("- ")),
        ("quotes", repeat("\"\\")),
        ("single quotes", repeat("'")),
        ("triple quotes", repeat("'''\n\"")),
        ("block scalars", repeat("k: |\n  x\n")),
        ("newlines", repeat("\n")),
        ("frontmatter", format!("---\n{}", repeat("a: b\n"))),
        ("fences", repeat("```\n")),
        ("directives", repeat(":::ordered_block\n")),
        ("emoji", repeat("😀")),
    ]
}

/// Runs of 1, 2, 3… backticks, none of them closed: each opener has a different length.
fn backtick_runs(bytes: usize) -> String {
    let mut text = String::new();
    let mut n = 1;
    while text.len() + n < bytes {
        text.push_str(&"`".repeat(n));
        text.push(' ');
        n += 1;
    }
    text
}
