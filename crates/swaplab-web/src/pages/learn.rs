//! `/learn` and `/learn/<chapter>`: the chapters, with a table of contents and
//! previous/next links.

use std::cell::RefCell;
use std::rc::Rc;

use swaplab_content::{Chapter, chapters};
use swaplab_core::markdown::render_with_directives;
use yew::prelude::*;

use super::use_title;
use crate::browser::{fetch_text, location_hash, page_anchor, scroll_to_anchor};
use crate::components::Markdown;
use crate::route::Route;
use crate::router::{Link, return_after_reload, use_navigator};

/// The list of chapters.
#[component]
pub fn LearnIndexPage() -> Html {
    use_title(Some("Chapters".to_owned()));
    html! {
        <div class="page narrow">
            <h1>{ "Chapters" }</h1>
            <p>{ "The tutorial, a chapter at a time. Each one works on the same small support \
                  agent and its swap to an MCP server." }</p>
            { chapter_list(chapters()) }
            <p>{ "Then check yourself: " }
                <Link to={Route::Exercises}>{ "the exercises" }</Link>
                { " hand you broken swaps to find and fix, and the " }
                <Link to={Route::Workshop}>{ "workshop" }</Link>
                { " puts chapters and exercises into a 90-minute session." }</p>
        </div>
    }
}

/// Props for [`ChapterPage`].
#[derive(Properties, PartialEq)]
pub struct ChapterPageProps {
    /// The chapter's slug from the URL.
    pub slug: AttrValue,
}

/// One chapter. Its markdown is fetched from the site (`chapters/NN-slug.md`, beside
/// `index.html`) the first time it opens and kept in memory for the rest of the visit;
/// until then the page says it is loading, and a failed fetch says so with a retry.
#[component]
pub fn ChapterPage(props: &ChapterPageProps) -> Html {
    let all = chapters();
    let index = all.iter().position(|c| c.slug == props.slug.as_str());
    let (text, retry) = use_chapter_text(index.map(|i| &all[i]));
    let loaded = matches!(text, ChapterText::Loaded(_));
    let doc = use_memo(text.clone(), |text| match text {
        ChapterText::Loaded(markdown) => {
            Rc::new(render_with_directives(markdown, &[swaplab_content::widget::DIRECTIVE]))
        }
        _ => Rc::default(),
    });
    use_title(Some(
        index.map_or_else(|| "Chapter not found".to_owned(), |i| all[i].title.to_owned()),
    ));
    use_scroll_to_anchor_once(loaded);

    let neighbour_slug = |i: Option<usize>| i.and_then(|i| all.get(i)).map(|c| c.slug);
    use_arrow_keys(
        neighbour_slug(index.and_then(|i| i.checked_sub(1))),
        neighbour_slug(index.map(|i| i + 1)),
    );

    let Some(index) = index else {
        return html! {
            <div class="page narrow">
                <h1>{ "No such chapter" }</h1>
                <p>{ format!("There is no chapter called “{}”. These are the chapters:", props.slug) }</p>
                { chapter_list(all) }
            </div>
        };
    };
    let chapter = &all[index];
    let previous = index.checked_sub(1).and_then(|i| all.get(i));
    let next = all.get(index + 1);
    let toc: Vec<Html> = doc
        .headings
        .iter()
        .filter(|h| h.level == 2)
        .map(|h| {
            html! { <li><a href={page_anchor(&h.id)}>{ h.text.clone() }</a></li> }
        })
        .collect();
    let body = match text {
        ChapterText::Loaded(_) => html! { <Markdown doc={(*doc).clone()} /> },
        ChapterText::Loading => html! {
            <p class="loading chapter-loading" role="status">{ "Loading the chapter…" }</p>
        },
        ChapterText::Failed(reason) => html! {
            <div class="notice warning chapter-failed" role="alert">
                <div class="notice-body">
                    { format!("“{}” could not be loaded ({reason}). Check the connection, then try again.", chapter.title) }
                    <span class="notice-actions">
                        <button type="button" onclick={move |_| retry.emit(())}>{ "Try again" }</button>
                    </span>
                </div>
            </div>
        },
    };
    html! {
        <div class="page chapter">
            <aside class="chapter-nav" aria-label="Chapters">
                <ol>
                    { for all.iter().map(|c| {
                        let current = c.slug == chapter.slug;
                        html! {
                            <li value={c.number.to_string()} class={classes!(current.then_some("current"))}>
                                <Link to={Route::Chapter { chapter: c.slug.to_owned() }}>
                                    <span aria-current={current.then_some("page")}>{ c.title }</span>
                                </Link>
                                if current && !toc.is_empty() {
                                    <ul class="toc">{ for toc.clone() }</ul>
                                }
                            </li>
                        }
                    }) }
                </ol>
            </aside>
            <article>
                <p class="chapter-number">{ format!("Chapter {}", chapter.number) }</p>
                { body }
                <nav class="prev-next" aria-label="Chapter navigation">
                    { neighbour(previous, "prev", "← Previous") }
                    { neighbour(next, "next", "Next →") }
                </nav>
            </article>
        </div>
    }
}

/// A chapter's markdown, as far as the page has it.
#[derive(Clone, PartialEq)]
enum ChapterText {
    /// On its way (or no chapter was asked for).
    Loading,
    /// Fetched now or earlier in this visit.
    Loaded(Rc<str>),
    /// The fetch failed; why, as a phrase.
    Failed(String),
}

thread_local! {
    /// Every chapter fetched in this visit, by slug: coming back to one is instant.
    static FETCHED: RefCell<Vec<(&'static str, Rc<str>)>> = const { RefCell::new(Vec::new()) };
}

/// Keeps the markdown a prerendered chapter page carried (`browser::take_prerendered_markdown`)
/// as if this visit had fetched it: the app's first render then shows the very text the
/// prerendered page showed, with no "Loading the chapter…" in between.
pub fn adopt_prerendered_chapter(path: &str, markdown: String) {
    let Some(chapter) = chapters().iter().find(|c| path == format!("learn/{}", c.slug)) else {
        return;
    };
    FETCHED.with_borrow_mut(|all| {
        if !all.iter().any(|(s, _)| *s == chapter.slug) {
            all.push((chapter.slug, markdown.into()));
        }
    });
}

fn fetched(slug: &str) -> Option<Rc<str>> {
    FETCHED.with_borrow(|all| all.iter().find(|(s, _)| *s == slug).map(|(_, text)| text.clone()))
}

/// The chapter's markdown: from memory when this visit fetched it before, else fetched
/// from the site; the callback fetches again after a failure.
#[hook]
fn use_chapter_text(chapter: Option<&'static Chapter>) -> (ChapterText, Callback<()>) {
    let text = use_state(|| {
        chapter.and_then(|c| fetched(c.slug)).map_or(ChapterText::Loading, ChapterText::Loaded)
    });
    let attempt = use_state(|| 0_u32);
    {
        let text = text.clone();
        let loaded = matches!(*text, ChapterText::Loaded(_));
        use_effect_with((chapter.map(|c| c.slug), *attempt), move |_| {
            let Some(chapter) = chapter.filter(|_| !loaded) else { return };
            text.set(ChapterText::Loading);
            wasm_bindgen_futures::spawn_local(async move {
                match fetch_text(chapter.path).await {
                    Ok(markdown) => {
                        let markdown: Rc<str> = markdown.into();
                        FETCHED.with_borrow_mut(|all| {
                            if !all.iter().any(|(s, _)| *s == chapter.slug) {
                                all.push((chapter.slug, markdown.clone()));
                            }
                        });
                        text.set(ChapterText::Loaded(markdown));
                    }
                    Err(reason) => text.set(ChapterText::Failed(reason)),
                }
            });
        });
    }
    let retry = Callback::from(move |()| attempt.set(*attempt + 1));
    ((*text).clone(), retry)
}

/// Once the chapter's text has arrived, returns to where the reader was before a
/// reload, or else scrolls to the anchor the URL names: the frame looked for both when
/// the page opened, before a fetched chapter had any headings.
#[hook]
fn use_scroll_to_anchor_once(loaded: bool) {
    use_effect_with(loaded, |loaded| {
        // The page's content renders after this effect: look once it has.
        let timeout = loaded.then(|| {
            gloo::timers::callback::Timeout::new(0, || {
                if return_after_reload(true) {
                    return;
                }
                let hash = location_hash();
                if !hash.is_empty() {
                    scroll_to_anchor(&hash);
                }
            })
        });
        move || drop(timeout)
    });
}

/// ← and → move to the previous and next chapter, unless the reader is typing or a
/// widget's tabs have the focus.
#[hook]
fn use_arrow_keys(previous: Option<&'static str>, next: Option<&'static str>) {
    let navigator = use_navigator();
    use_effect_with((previous, next), move |(previous, next)| {
        let (previous, next) = (*previous, *next);
        let listener = crate::browser::window().map(|window| {
            gloo::events::EventListener::new_with_options(
                &window,
                "keydown",
                gloo::events::EventListenerOptions::enable_prevent_default(),
                move |event| {
                    let Some(event) = wasm_bindgen::JsCast::dyn_ref::<KeyboardEvent>(event) else {
                        return;
                    };
                    if event.alt_key() || event.ctrl_key() || event.meta_key() || event.shift_key()
                    {
                        return;
                    }
                    if crate::browser::typing_into_field(event) || in_tablist(event) {
                        return;
                    }
                    let target = match event.key().as_str() {
                        "ArrowLeft" => previous,
                        "ArrowRight" => next,
                        _ => return,
                    };
                    if let (Some(slug), Some(navigator)) = (target, &navigator) {
                        event.prevent_default();
                        navigator.push(&Route::Chapter { chapter: slug.to_owned() });
                    }
                },
            )
        });
        move || drop(listener)
    });
}

fn in_tablist(event: &KeyboardEvent) -> bool {
    event
        .target()
        .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
        .is_some_and(|e| e.closest("[role=tablist]").ok().flatten().is_some())
}

/// Every chapter as a numbered list of links.
fn chapter_list(chapters: &[Chapter]) -> Html {
    html! {
        <ol class="chapter-list">
            { for chapters.iter().map(|c| html! {
                <li value={c.number.to_string()}>
                    <Link to={Route::Chapter { chapter: c.slug.to_owned() }}>{ c.title }</Link>
                </li>
            }) }
        </ol>
    }
}

fn neighbour(chapter: Option<&Chapter>, class: &'static str, label: &'static str) -> Html {
    match chapter {
        Some(c) => html! {
            <Link to={Route::Chapter { chapter: c.slug.to_owned() }} classes={class}>
                <span class="label">{ label }</span>
                <span class="title">{ c.title }</span>
            </Link>
        },
        None => html! { <span class={class}></span> },
    }
}
