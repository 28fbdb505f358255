//! One component per route.

mod examples;
mod exercise;
mod home;
pub mod learn;
mod not_found;
mod play;
mod workshop;

pub use examples::ExamplesPage;
pub use exercise::{ExercisePage, ExercisesPage, ShortExerciseLink};
pub use home::HomePage;
pub use learn::{ChapterPage, LearnIndexPage};
pub use not_found::NotFoundPage;
pub use play::PlayPage;
pub use workshop::{ReceiptsPage, WorkshopExercisesPage, WorkshopPage};

/// The document title for a page: "<page> — Swap Lab", or the site's own for the start.
pub fn title(page: Option<&str>) -> String {
    match page {
        Some(page) => format!("{page} — Swap Lab"),
        None => "Swap Lab — is an MCP server a drop-in replacement?".to_owned(),
    }
}

/// Sets the document title for a page ([`title`]).
#[yew::hook]
pub fn use_title(page: Option<String>) {
    yew::use_effect_with(page, |page| crate::browser::set_title(&title(page.as_deref())));
}
