//! The app's own components rendered to HTML natively, for the pages `cargo xtask dist`
//! writes: the start page, the examples, the exercises and the workshop pages, and each
//! chapter's widgets. They show what the app will show, so it takes them over without
//! a jump (`e2e/prerender.spec.mjs`).
//!
//! Yew's server renderer runs the components once, without effects, under a
//! [`StaticRouter`]; off the web `browser.rs` answers as a browser with nothing stored,
//! and the core is deterministic, so the results are the app's. Only built with the
//! `prerender` feature, off the web.

use swaplab_content::prerender::{Page, description};
use swaplab_core::markdown::render as render_markdown;
use yew::prelude::*;
use yew::{BaseComponent, LocalServerRenderer};

use crate::pages::title;
use crate::panes::{WidgetBlock, WidgetBlockProps};
use crate::route::{Route, switch};
use crate::router::StaticRouter;

/// A ```` ```widget ```` block (its YAML `body`, first on chapter line `line`) as the app
/// renders it before any click: a conversation widget waits for *Run*, the others show
/// their results.
pub fn widget_html(body: &str, line: u32) -> std::io::Result<String> {
    render::<WidgetBlock>(WidgetBlockProps { body: body.to_owned().into(), line })
}

/// The routes prerendered from the app's pages, with each one's title (as its page
/// sets it) and description. The chapters come from `swaplab_content::prerender`.
/// Each exercise's page follows them. Left out: `/workshop/exercises`, whose QR codes
/// need the site's address, which only the browser knows, and `/x/<n>`, which moves on.
const PAGES: [(Route, Option<&str>, &str); 6] = [
    (
        Route::Play,
        Some("Playground"),
        "The tutorial's Rasa project before and after its tools move onto an MCP server, the \
         server and the mock CRM, with the proof, the review and the attack run on every edit.",
    ),
    (
        Route::Home,
        None,
        "A Rasa agent's tools move from local Python onto an MCP server: see, live in your \
         browser, which instructions survive the swap and where a customer id stops being \
         trusted.",
    ),
    (
        Route::Examples,
        Some("Examples"),
        "Whole swaps to study, each with what the proof, the review and the attack find in it, \
         opening in the playground with its files loaded.",
    ),
    (
        Route::Exercises,
        Some("Exercises"),
        "Broken swaps with a goal each: point at the line that leaks, or fix it, and the page \
         checks your work as you type.",
    ),
    (
        Route::Workshop,
        Some("Workshop"),
        "A 90-minute session on MCP swaps, step by step, with speaker notes, chapters and \
         exercises.",
    ),
    (
        Route::Receipts,
        Some("Receipts"),
        "Paste participants' exercise receipts to see the room's progress in a table; \
         nothing leaves the browser.",
    ),
];

/// The start, playground, examples, exercises and workshop pages and every exercise's
/// own, each as the app renders it for a reader with nothing stored.
pub fn app_pages() -> std::io::Result<Vec<Page>> {
    let mut pages: Vec<(Route, String, String)> = PAGES
        .iter()
        .map(|(route, page, description)| (route.clone(), title(*page), (*description).to_owned()))
        .collect();
    for info in swaplab_content::exercises().unwrap_or_default() {
        let doc = render_markdown(&info.brief);
        let description = description(&doc).unwrap_or_else(|| info.title.clone());
        pages.push((
            Route::Exercise { id: info.id.to_owned() },
            title(Some(&info.title)),
            description,
        ));
    }
    pages
        .into_iter()
        .map(|(route, title, description)| {
            Ok(Page {
                path: route.to_path().trim_start_matches('/').to_owned(),
                title,
                description,
                main: format!(
                    "{}{}",
                    match route {
                        Route::Play => NO_SCRIPT_PLAYGROUND,
                        Route::Exercise { .. } => NO_SCRIPT_EXERCISE,
                        _ => "",
                    },
                    render::<RoutePage>(RoutePageProps { route: route.clone() })?
                ),
                markdown: None,
                // The playground opens what a link names; the presenter, its step.
                follows_address: matches!(route, Route::Play | Route::Workshop),
            })
        })
        .collect()
}

/// What the prerendered playground says with JavaScript off: what it shows, and why
/// nothing on it answers.
const NO_SCRIPT_PLAYGROUND: &str = "<noscript><p class=\"notice\">JavaScript is off, so \
    this is the tutorial's example as it ships, with the results it gives. Editing, rerunning \
    the checks and opening another example or a shared link happen in your browser, with \
    WebAssembly, and need JavaScript.</p></noscript>";

/// The same for an exercise's page.
const NO_SCRIPT_EXERCISE: &str = "<noscript><p class=\"notice\">JavaScript is off, so this \
    exercise shows its files as they start. Editing them and checking the goal happen in your \
    browser, with WebAssembly, and need JavaScript.</p></noscript>";

/// Props for [`RoutePage`].
#[derive(Properties, PartialEq)]
struct RoutePageProps {
    route: Route,
}

/// One route's page under a router fixed at it.
#[component]
fn RoutePage(props: &RoutePageProps) -> Html {
    html! { <StaticRouter route={props.route.clone()}>{ switch(&props.route) }</StaticRouter> }
}

/// A component rendered once, to HTML without hydration marks.
fn render<C: BaseComponent>(props: C::Properties) -> std::io::Result<String> {
    let renderer = LocalServerRenderer::<C>::with_props(props).hydratable(false);
    let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    Ok(tokio::task::LocalSet::new().block_on(&runtime, renderer.render()))
}
