//! Light, dark, or whatever the system prefers: the reader's choice, remembered.
//!
//! `www/theme.js` applies the stored choice before the app loads, so the page never
//! flashes the wrong colours; this module owns the choice once the app runs.

use crate::browser::{THEME_KEY, load, remove, save, set_theme_attribute};

/// The reader's theme choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    /// Follow the system's light or dark setting.
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl Theme {
    /// The stored choice, or [`Theme::System`].
    pub fn stored() -> Theme {
        match load(THEME_KEY).as_deref() {
            Some("light") => Theme::Light,
            Some("dark") => Theme::Dark,
            _ => Theme::System,
        }
    }

    /// The next choice in the toggle's cycle: system → light → dark → system.
    pub fn next(self) -> Theme {
        match self {
            Theme::System => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::System,
        }
    }

    /// A label for the toggle.
    pub fn label(self) -> &'static str {
        match self {
            Theme::System => "Theme: system",
            Theme::Light => "Theme: light",
            Theme::Dark => "Theme: dark",
        }
    }

    /// A one-character icon for the toggle.
    pub fn icon(self) -> &'static str {
        match self {
            Theme::System => "◐",
            Theme::Light => "☀",
            Theme::Dark => "☾",
        }
    }

    fn attribute(self) -> Option<&'static str> {
        match self {
            Theme::System => None,
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
        }
    }

    /// Applies the choice to the page and remembers it.
    pub fn apply(self) {
        set_theme_attribute(self.attribute());
        match self.attribute() {
            // A failed save only means the choice is forgotten on the next visit.
            Some(value) => {
                let _ = save(THEME_KEY, value);
            }
            None => remove(THEME_KEY),
        }
    }
}
