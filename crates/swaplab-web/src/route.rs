//! The site's routes. Paths are relative to the `<base href>` Trunk writes, so the same
//! build works at `/` and under a sub-path.

use yew::prelude::*;
use yew_router::prelude::*;

use crate::pages::{
    ChapterPage, ExamplesPage, ExercisePage, ExercisesPage, HomePage, LearnIndexPage, NotFoundPage,
    PlayPage, ReceiptsPage, ShortExerciseLink, WorkshopExercisesPage, WorkshopPage,
};

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
    /// The list of exercises.
    #[at("/exercises")]
    Exercises,
    /// One exercise.
    #[at("/exercises/:id")]
    Exercise {
        /// The exercise's id, `NN-slug`.
        id: String,
    },
    /// The short link to an exercise, for a slide: `/x/NN`.
    #[at("/x/:number")]
    ShortExercise {
        /// The exercise's number.
        number: String,
    },
    /// The presenter's view of the workshop.
    #[at("/workshop")]
    Workshop,
    /// Every exercise with its short link and QR code.
    #[at("/workshop/exercises")]
    WorkshopExercises,
    /// The facilitator's page for participants' receipts.
    #[at("/workshop/receipts")]
    Receipts,
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
            Route::Exercises | Route::Exercise { .. } | Route::ShortExercise { .. } => {
                Some("exercises")
            }
            Route::Workshop | Route::WorkshopExercises | Route::Receipts => Some("workshop"),
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
        Route::Exercises => html! { <ExercisesPage /> },
        Route::Exercise { id } => {
            let key = id.clone();
            html! { <ExercisePage {key} id={id} /> }
        }
        Route::ShortExercise { number } => html! { <ShortExerciseLink number={number} /> },
        Route::Workshop => html! { <WorkshopPage /> },
        Route::WorkshopExercises => html! { <WorkshopExercisesPage /> },
        Route::Receipts => html! { <ReceiptsPage /> },
        Route::NotFound => html! { <NotFoundPage /> },
    }
}
