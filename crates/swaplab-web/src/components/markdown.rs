//! Shows a `swaplab_core::markdown::Document` as Yew nodes.
//!
//! The document can only hold the core's allowlisted tags and attributes, and text is
//! inserted as text, so nothing here can run script. Links to the site's own routes
//! navigate inside the app instead of reloading it.

use std::rc::Rc;

use swaplab_core::markdown::{Attr, Document, Node, Tag};
use yew::prelude::*;
use yew::virtual_dom::VTag;

use crate::browser::{page_anchor, scroll_to_anchor, set_anchor};
use crate::route::Route;
use crate::router::{Navigator, plain_click, query_pairs, use_navigator};

/// Props for [`Markdown`].
#[derive(Properties, PartialEq)]
pub struct MarkdownProps {
    /// The rendered document.
    pub doc: Rc<Document>,
}

/// A markdown document.
#[component]
pub fn Markdown(props: &MarkdownProps) -> Html {
    let navigator = use_navigator();
    html! {
        <div class="prose">
            { for props.doc.nodes.iter().map(|node| render(node, navigator.as_ref())) }
        </div>
    }
}

fn render(node: &Node, navigator: Option<&Navigator>) -> Html {
    match node {
        Node::Text(text) => html! { { text.clone() } },
        Node::Directive { name, body, line } if name == swaplab_content::widget::DIRECTIVE => {
            html! { <crate::panes::WidgetBlock body={body.clone()} line={*line} /> }
        }
        // A directive this page does not know is shown as the code it is.
        Node::Directive { body, .. } => html! { <pre><code>{ body.clone() }</code></pre> },
        Node::Element { tag, attrs, children } => {
            let children = children.iter().map(|child| render(child, navigator));
            if *tag == Tag::A
                && let Some(navigator) = navigator
                && let Some(href) = attrs.iter().find(|(a, _)| *a == Attr::Href).map(|(_, v)| v)
                && let Some((route, query, anchor)) = app_route(href)
            {
                return internal_link(navigator, route, query, anchor, None, children.collect());
            }
            let mut vtag = VTag::new(tag.name());
            for (attr, value) in attrs {
                match (attr, value.strip_prefix('#')) {
                    (Attr::Href, Some(id)) => vtag.add_attribute("href", page_anchor(id)),
                    _ => vtag.add_attribute(attr.name(), value.clone()),
                }
            }
            if !tag.is_void() {
                vtag.add_children(children);
            }
            // Every section heading carries a link to itself, for sharing a place.
            if let (Tag::H(2..=4), Some((_, id))) =
                (tag, attrs.iter().find(|(a, _)| *a == Attr::Id))
            {
                let title = format!("Link to “{}”", node.text());
                vtag.add_child(html! {
                    <a class="heading-anchor" href={page_anchor(id)} aria-label={title.clone()} {title}>{ "#" }</a>
                });
            }
            vtag.into()
        }
    }
}

/// Text with `backticked` spans shown as code: the only markup the core's one-line
/// messages (review summaries, semantic changes, goal checks) use.
pub fn inline_code(text: &str) -> Html {
    html! {
        { for text.split('`').enumerate().map(|(i, part)| {
            if i % 2 == 1 { html! { <code>{ part.to_owned() }</code> } } else { html! { { part.to_owned() } } }
        }) }
    }
}

/// Where a site-relative link goes: the route, its query pairs and its anchor.
type AppLink = (Route, Vec<(String, String)>, Option<String>);

/// A site-relative href (`/play?example=x`, `/learn/x#y`) as an [`AppLink`].
fn app_route(href: &str) -> Option<AppLink> {
    if !href.starts_with('/') || href.starts_with("//") {
        return None;
    }
    let (without_hash, anchor) = match href.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor.to_owned())),
        None => (href, None),
    };
    let (path, query) = without_hash.split_once('?').unwrap_or((without_hash, ""));
    // Anything under the site's base is the app's: a path it does not have shows the
    // not-found page, as it would on a full load.
    let route = Route::recognize(path);
    let pairs = query_pairs(query);
    Some((route, pairs, anchor))
}

/// A link to a site-relative href (`/learn/x#y`): followed inside the app under a
/// router, else a plain link relative to the `<base href>`.
pub fn site_link(
    navigator: Option<&Navigator>,
    href: &str,
    class: Option<&'static str>,
    children: Vec<Html>,
) -> Html {
    match (navigator, app_route(href)) {
        (Some(navigator), Some((route, query, anchor))) => {
            internal_link(navigator, route, query, anchor, class, children)
        }
        _ => {
            html! { <a {class} href={href.trim_start_matches('/').to_owned()}>{ for children }</a> }
        }
    }
}

/// A link to one of the site's routes that navigates inside the app (a modified click,
/// for a new tab or window, is left to the browser). Pages use it too: one kind of
/// in-app link with a query, built by the [`Navigator`].
pub fn internal_link(
    navigator: &Navigator,
    route: Route,
    query: Vec<(String, String)>,
    anchor: Option<String>,
    class: Option<&'static str>,
    children: Vec<Html>,
) -> Html {
    let href = navigator.href(&route, &query, anchor.as_deref());
    let onclick = {
        let navigator = navigator.clone();
        Callback::from(move |e: MouseEvent| {
            if !plain_click(&e) {
                return;
            }
            e.prevent_default();
            navigator.push_with_query(&route, &query);
            // The new page renders after this handler: look for the anchor once it has.
            // The URL names it at once, so a chapter still being fetched scrolls to it
            // when its text arrives (`pages/learn.rs`).
            if let Some(anchor) = anchor.clone() {
                set_anchor(&anchor);
                gloo::timers::callback::Timeout::new(1, move || {
                    scroll_to_anchor(&anchor);
                })
                .forget();
            }
        })
    };
    html! { <a {class} href={href} onclick={onclick}>{ for children }</a> }
}
