//! Colour for people, plain text for pipes: ANSI styles only when standard output is a
//! terminal and `NO_COLOR` is unset (the no-color.org convention).

use std::io::IsTerminal;

/// Whether and how to colour output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    /// Emit ANSI escapes.
    pub color: bool,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is not set.
    pub fn detect() -> Style {
        let wanted = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        Style { color: wanted && std::io::stdout().is_terminal() }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    /// A passing mark or word (green).
    pub fn pass(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// A failing mark or word (red).
    pub fn fail(self, text: &str) -> String {
        self.paint("31", text)
    }

    /// A warning (yellow).
    pub fn warn(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Headings (bold).
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Secondary text (dim).
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// Added lines (green) — diff output.
    pub fn added(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Removed lines (red) — diff output.
    pub fn removed(self, text: &str) -> String {
        self.paint("31", text)
    }
}
