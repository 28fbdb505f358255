//! The site's routes. Paths are relative to the `<base href>` Trunk writes, so the same
//! build works at `/` and under a sub-path.

use yew::prelude::*;
use yew_router::prelude::*;

use crate::pages::{ChapterPage, ExamplesPage, HomePage, LearnIndexPage, NotFoundPage, PlayPage};

/// Every page of the site.
#[derive(Clone, Debug, PartialEq, Eq, Routable)]
pub enum Route {
    /// What Swap Lab is and where to start.
    #[at("/")]
    Home,
    /// The list of chapters.
    #[at("/learn")]
    LearnIndex,
    /// One chapter.
    #[at("/learn/:chapter")]
    Chapter {
        /// The chapter's slug.
        chapter: String,
    },
    /// The playground.
    #[at("/play")]
    Play,
    /// The gallery of built-in examples.
    #[at("/examples")]
    Examples,
    /// Anything else.
    #[not_found]
    #[at("/404")]
    NotFound,
}

impl Route {
    /// The navigation section a route belongs to, for highlighting the header.
    pub fn section(&self) -> Option<&'static str> {
        match self {
            Route::LearnIndex | Route::Chapter { .. } => Some("learn"),
            Route::Play => Some("play"),
            Route::Examples => Some("examples"),
            Route::Home | Route::NotFound => None,
        }
    }
}

/// Renders the page for a route.
pub fn switch(route: Route) -> Html {
    match route {
        Route::Home => html! { <HomePage /> },
        Route::LearnIndex => html! { <LearnIndexPage /> },
        Route::Chapter { chapter } => {
            let key = chapter.clone();
            html! { <ChapterPage {key} slug={chapter} /> }
        }
        Route::Play => html! { <PlayPage /> },
        Route::Examples => html! { <ExamplesPage /> },
        Route::NotFound => html! { <NotFoundPage /> },
    }
}
