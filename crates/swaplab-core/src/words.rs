//! Counted nouns, spelled the same way by every surface: `1 probe`, `2 probes`.
//! Messages copied from Rasa, Python or pydantic (`argument(s)`, the proof's
//! `changed line(s)`) keep their own spelling and do not go through here.

/// `1 probe`, `2 probes`, `0 probes`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_takes_the_singular_and_every_other_count_the_plural() {
        assert_eq!(count(0, "probe", "probes"), "0 probes");
        assert_eq!(count(1, "probe", "probes"), "1 probe");
        assert_eq!(count(2, "tool binding", "tool bindings"), "2 tool bindings");
    }
}
