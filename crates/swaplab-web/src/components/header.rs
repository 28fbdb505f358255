//! The site header: the name, the sections and the theme toggle.

use yew::prelude::*;

use crate::route::Route;
use crate::router::{Link, use_route};
use crate::theme::Theme;

/// The header on every page.
#[component]
pub fn Header() -> Html {
    let route = use_route();
    let section = route.as_ref().and_then(Route::section);
    let theme = use_state(Theme::stored);
    let toggle = {
        let theme = theme.clone();
        Callback::from(move |_: MouseEvent| {
            let next = theme.next();
            next.apply();
            theme.set(next);
        })
    };
    // The section's own page is the current page; a page inside the section (a
    // chapter under Learn) makes the section current, not its page.
    let nav_link = |to: Route, key: &'static str, label: &'static str| {
        let current = section == Some(key);
        let aria_current =
            current.then_some(if route.as_ref() == Some(&to) { "page" } else { "true" });
        html! {
            <li>
                <Link to={to} classes={classes!(current.then_some("current"))}>
                    <span aria-current={aria_current}>{ label }</span>
                </Link>
            </li>
        }
    };
    html! {
        <header class="site-header">
            <Link to={Route::Home} classes="brand">
                <span class="brand-mark" aria-hidden="true">{ "⇄" }</span>
                <span class="brand-name">{ "Swap Lab" }</span>
            </Link>
            <nav aria-label="Sections">
                <ul>
                    { nav_link(Route::LearnIndex, "learn", "Learn") }
                    { nav_link(Route::Play, "play", "Playground") }
                    { nav_link(Route::Examples, "examples", "Examples") }
                    { nav_link(Route::Exercises, "exercises", "Exercises") }
                    { nav_link(Route::Workshop, "workshop", "Workshop") }
                </ul>
            </nav>
            <button
                class="theme-toggle"
                type="button"
                onclick={toggle}
                title={format!("{} (click to change)", theme.label())}
                aria-label={theme.label()}
            >
                <span aria-hidden="true">{ theme.icon() }</span>
            </button>
        </header>
    }
}
