//! The site's routes and their paths. Paths are relative to the `<base href>` Trunk
//! writes, so the same build works at `/` and under a sub-path (`router.rs` adds it).

use yew::prelude::*;

use crate::pages::{
    ChapterPage, ExamplesPage, ExercisePage, ExercisesPage, HomePage, LearnIndexPage, NotFoundPage,
    PlayPage, ReceiptsPage, ShortExerciseLink, WorkshopExercisesPage, WorkshopPage,
};
use crate::router::{decode_component, encode_segment};

/// Every page of the site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// What Swap Lab is and where to start.
    Home,
    /// The list of chapters.
    LearnIndex,
    /// One chapter.
    Chapter {
        /// The chapter's slug.
        chapter: String,
    },
    /// The playground.
    Play,
    /// The gallery of built-in examples.
    Examples,
    /// The list of exercises.
    Exercises,
    /// One exercise.
    Exercise {
        /// The exercise's id, `NN-slug`.
        id: String,
    },
    /// The short link to an exercise, for a slide: `/x/NN`.
    ShortExercise {
        /// The exercise's number.
        number: String,
    },
    /// The presenter's view of the workshop.
    Workshop,
    /// Every exercise with its short link and QR code.
    WorkshopExercises,
    /// The facilitator's page for participants' receipts.
    Receipts,
    /// Anything else.
    NotFound,
}

impl Route {
    /// The route a path names (`/learn/the-swap`), relative to the base; anything the
    /// site does not have is [`Route::NotFound`]. A trailing `/` is ignored and segments
    /// are percent-decoded.
    pub fn recognize(path: &str) -> Route {
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let segments: Vec<String> =
            path.split('/').filter(|s| !s.is_empty()).map(decode_component_segment).collect();
        let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
        let owned = |s: &str| s.to_owned();
        match segments.as_slice() {
            [] => Route::Home,
            ["learn"] => Route::LearnIndex,
            ["learn", chapter] => Route::Chapter { chapter: owned(chapter) },
            ["play"] => Route::Play,
            ["examples"] => Route::Examples,
            ["exercises"] => Route::Exercises,
            ["exercises", id] => Route::Exercise { id: owned(id) },
            ["x", number] => Route::ShortExercise { number: owned(number) },
            ["workshop"] => Route::Workshop,
            ["workshop", "exercises"] => Route::WorkshopExercises,
            ["workshop", "receipts"] => Route::Receipts,
            _ => Route::NotFound,
        }
    }

    /// The route's path, relative to the base: `/learn/the-swap`.
    pub fn to_path(&self) -> String {
        match self {
            Route::Home => "/".to_owned(),
            Route::LearnIndex => "/learn".to_owned(),
            Route::Chapter { chapter } => format!("/learn/{}", encode_segment(chapter)),
            Route::Play => "/play".to_owned(),
            Route::Examples => "/examples".to_owned(),
            Route::Exercises => "/exercises".to_owned(),
            Route::Exercise { id } => format!("/exercises/{}", encode_segment(id)),
            Route::ShortExercise { number } => format!("/x/{}", encode_segment(number)),
            Route::Workshop => "/workshop".to_owned(),
            Route::WorkshopExercises => "/workshop/exercises".to_owned(),
            Route::Receipts => "/workshop/receipts".to_owned(),
            Route::NotFound => "/404".to_owned(),
        }
    }

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

/// A path segment percent-decoded; unlike a query, `+` is itself.
fn decode_component_segment(segment: &str) -> String {
    decode_component(&segment.replace('+', "%2B"))
}

/// Renders the page for a route.
pub fn switch(route: &Route) -> Html {
    let route = route.clone();
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
