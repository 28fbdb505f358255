//! The site's own small router: which [`Route`] the address bar names, moving between
//! routes with the History API, and links that do so without reloading the page.
//!
//! Paths are relative to the `<base href>` Trunk writes, so the same build works at `/`
//! and under a sub-path. [`Router`] keeps the current location (route and query) and
//! rereads it on `popstate`; pages read it with [`use_route`] and [`use_query`] and move
//! with the [`Navigator`] from [`use_navigator`]. [`Link`] is an `<a href>` that a plain
//! click follows inside the app and a modified or middle click leaves to the browser (a
//! new tab, a new window). The router remembers where the reader was on each history
//! entry of the visit, so Back and Forward return to that place (`app.rs` scrolls), and
//! keeps those places in the tab's session storage as the page is left or hidden, so a
//! reload (or a phone bringing back a tab it discarded) returns to them too.
//! Replaces `yew_router`, whose generic router, history and query serialisation cost
//! the wasm more than these few functions do.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsValue;
use yew::prelude::*;

use crate::route::Route;

/// Where the address bar is: the route and its query string (without `?`, as typed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The page.
    pub route: Route,
    /// The query string, percent-encoded as in the URL; read it with [`query_pairs`].
    pub query: String,
}

/// Moves between routes. Cheap to clone; every clone moves the same router.
#[derive(Clone)]
pub struct Navigator {
    /// The `<base href>` path without its trailing `/` (empty at the site's root).
    base: Rc<str>,
    /// Tells the router that the address changed.
    moved: Callback<()>,
}

impl PartialEq for Navigator {
    fn eq(&self, other: &Self) -> bool {
        self.base == other.base && self.moved == other.moved
    }
}

impl Navigator {
    /// The `<base href>` path without its trailing `/`; `None` at the site's root.
    pub fn basename(&self) -> Option<&str> {
        (!self.base.is_empty()).then_some(&*self.base)
    }

    /// The `href` of a route with a query (pairs, encoded here) and an anchor.
    pub fn href<K: AsRef<str>, V: AsRef<str>>(
        &self,
        route: &Route,
        query: &[(K, V)],
        anchor: Option<&str>,
    ) -> String {
        let mut href = format!("{}{}", self.base, route.to_path());
        for (i, (key, value)) in query.iter().enumerate() {
            href.push(if i == 0 { '?' } else { '&' });
            href.push_str(&encode_component(key.as_ref()));
            href.push('=');
            href.push_str(&encode_component(value.as_ref()));
        }
        if let Some(anchor) = anchor {
            href.push('#');
            href.push_str(anchor);
        }
        href
    }

    /// Goes to a route, adding a history entry.
    pub fn push(&self, route: &Route) {
        self.go(&self.href::<&str, &str>(route, &[], None), false);
    }

    /// Goes to a route with a query, adding a history entry.
    pub fn push_with_query<K: AsRef<str>, V: AsRef<str>>(&self, route: &Route, query: &[(K, V)]) {
        self.go(&self.href(route, query, None), false);
    }

    /// Goes to a route in place of the current history entry.
    pub fn replace(&self, route: &Route) {
        self.go(&self.href::<&str, &str>(route, &[], None), true);
    }

    /// Goes to a route with a query in place of the current history entry: for a page
    /// that keeps its own state in the address (the presenter's step). The router hears
    /// of it, so a link to the same route without that query is a change it sees.
    pub fn replace_with_query<K: AsRef<str>, V: AsRef<str>>(
        &self,
        route: &Route,
        query: &[(K, V)],
    ) {
        self.go(&self.href(route, query, None), true);
    }

    fn go(&self, href: &str, replace: bool) {
        let Some(history) = crate::browser::window().and_then(|w| w.history().ok()) else { return };
        // A new page starts where its own anchor or top is, not at a remembered place.
        ARRIVED_AT.set(None);
        forget_reloaded_place();
        // A link to the address already on screen adds no entry, as in a browser: Back
        // must not take a click to seem to do nothing.
        let replace = replace || is_current_address(href);
        let state = new_entry_state();
        let done = if replace {
            history.replace_state_with_url(&state, "", Some(href))
        } else {
            history.push_state_with_url(&state, "", Some(href))
        };
        if done.is_ok() {
            self.moved.emit(());
        }
    }
}

/// Whether `href` (a path with its query and anchor) is the address bar's address now.
fn is_current_address(href: &str) -> bool {
    let Some(location) = crate::browser::window().map(|w| w.location()) else { return false };
    let (Ok(path), Ok(search), Ok(hash)) =
        (location.pathname(), location.search(), location.hash())
    else {
        return false;
    };
    href == format!("{path}{search}{hash}")
}

/// What the router shares with the pages under it.
#[derive(Clone, PartialEq)]
struct RouterState {
    location: Location,
    navigator: Navigator,
}

/// Properties of [`Router`].
#[derive(Properties, PartialEq)]
pub struct RouterProps {
    /// The app under the router.
    pub children: Html,
}

/// Keeps the current [`Location`] for everything under it and follows the browser's
/// back and forward buttons.
#[component]
pub fn Router(props: &RouterProps) -> Html {
    let base = use_memo((), |()| base_path());
    let location = use_state_eq({
        let base = base.clone();
        move || current_location(&base)
    });
    let moved = {
        let (base, location) = (base.clone(), location.clone());
        use_callback((), move |(), ()| location.set(current_location(&base)))
    };
    {
        let moved = moved.clone();
        use_effect_with((), move |()| {
            let listener = crate::browser::window().map(|window| {
                gloo::events::EventListener::new(&window, "popstate", move |_| {
                    forget_reloaded_place();
                    ARRIVED_AT.set(entry_key().and_then(place_of));
                    moved.emit(());
                })
            });
            move || drop(listener)
        });
    }
    // Where the reader is on the page on screen, noted under its history entry as
    // they scroll: the entry they go Back or Forward to finds it there. A reload, or a
    // return from another site, keeps the entry's key: the places saved as the page was
    // left come back, and the entry's own is where the page starts.
    use_effect_with((), |()| {
        // The app returns the reader to their place itself. Left to the browser too
        // (`auto`), Chromium restores its own idea of the place after a Back, later
        // than ours, and the two race.
        if let Some(history) = crate::browser::window().and_then(|w| w.history().ok()) {
            let _ = js_sys::Reflect::set(
                &history,
                &JsValue::from_str("scrollRestoration"),
                &JsValue::from_str("manual"),
            );
        }
        PLACES.with_borrow_mut(|places| *places = Places::read(&load_places()));
        match entry_key() {
            Some(key) => RELOADED_AT.set(place_of(key)),
            None => {
                if let Some(history) = crate::browser::window().and_then(|w| w.history().ok()) {
                    let _ = history.replace_state(&new_entry_state(), "");
                }
            }
        }
        let listeners = crate::browser::window().map(|window| {
            let document = window.document();
            let scrolled = gloo::events::EventListener::new(&window.clone(), "scroll", move |_| {
                if let (Some(key), Ok(y)) = (entry_key(), window.scroll_y()) {
                    PLACES.with_borrow_mut(|places| places.note(key, y));
                }
            });
            let left = crate::browser::window().map(|window| {
                gloo::events::EventListener::new(&window, "pagehide", |_| save_places())
            });
            let hidden = document.map(|document| {
                gloo::events::EventListener::new(&document, "visibilitychange", |_| save_places())
            });
            (scrolled, left, hidden)
        });
        move || drop(listeners)
    });
    let state = RouterState {
        location: (*location).clone(),
        navigator: Navigator { base: Rc::from(base.as_str()), moved },
    };
    html! {
        <ContextProvider<RouterState> context={state}>{ props.children.clone() }</ContextProvider<RouterState>>
    }
}

/// The current location; `None` outside a [`Router`].
#[hook]
pub fn use_location() -> Option<Location> {
    use_context::<RouterState>().map(|state| state.location)
}

/// The current route; `None` outside a [`Router`].
#[hook]
pub fn use_route() -> Option<Route> {
    use_location().map(|location| location.route)
}

/// The current query's pairs, decoded; empty outside a [`Router`].
#[hook]
pub fn use_query() -> Vec<(String, String)> {
    use_location().map(|location| query_pairs(&location.query)).unwrap_or_default()
}

/// Properties of [`StaticRouter`].
#[derive(Properties, PartialEq)]
pub struct StaticRouterProps {
    /// The route its pages show.
    pub route: Route,
    /// What it wraps.
    pub children: Html,
}

/// A [`Router`] fixed at one route with no browser behind it, for rendering pages
/// natively (`prerender.rs`). Its links are relative to the page's `<base href>`
/// (`./play`), so one rendering serves at `/` and under a sub-path; it never moves.
#[component]
pub fn StaticRouter(props: &StaticRouterProps) -> Html {
    let state = RouterState {
        location: Location { route: props.route.clone(), query: String::new() },
        navigator: Navigator { base: Rc::from("."), moved: Callback::noop() },
    };
    html! {
        <ContextProvider<RouterState> context={state}>{ props.children.clone() }</ContextProvider<RouterState>>
    }
}

/// The navigator; `None` outside a [`Router`].
#[hook]
pub fn use_navigator() -> Option<Navigator> {
    use_context::<RouterState>().map(|state| state.navigator)
}

/// Properties of [`Link`].
#[derive(Properties, PartialEq)]
pub struct LinkProps {
    /// Where the link goes.
    pub to: Route,
    /// The `<a>`'s classes.
    #[prop_or_default]
    pub classes: Classes,
    /// What the link shows.
    #[prop_or_default]
    pub children: Html,
}

/// A link to a route: a real `<a href>`, followed inside the app on a plain click.
#[component]
pub fn Link(props: &LinkProps) -> Html {
    let navigator = use_navigator();
    let href = match &navigator {
        Some(navigator) => navigator.href::<&str, &str>(&props.to, &[], None),
        None => props.to.to_path(),
    };
    let onclick = {
        let to = props.to.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(navigator) = &navigator else { return };
            if !plain_click(&e) {
                return;
            }
            e.prevent_default();
            navigator.push(&to);
        })
    };
    html! { <a {href} class={props.classes.clone()} {onclick}>{ props.children.clone() }</a> }
}

/// The name of a history entry's key in its state.
const ENTRY_KEY: &str = "swaplabEntry";

/// The session-storage key under which the places of the tab's history entries outlive
/// a reload.
const PLACES_KEY: &str = "swaplab.places.v1";

thread_local! {
    /// Where the reader last was on each history entry of this tab, by entry key.
    static PLACES: RefCell<Places> = const { RefCell::new(Places(Vec::new())) };
    /// The place remembered for the entry Back or Forward just arrived at; `None`
    /// after a link, or for an entry this visit has no place for.
    static ARRIVED_AT: Cell<Option<f64>> = const { Cell::new(None) };
    /// The place a reload left the current entry at, until the page is tall enough to
    /// return to it (a chapter's text arrives after the page opens).
    static RELOADED_AT: Cell<Option<f64>> = const { Cell::new(None) };
}

/// Where the reader was on each history entry, the most recently noted last.
#[derive(Debug, Default, PartialEq)]
pub struct Places(Vec<(u64, f64)>);

impl Places {
    /// How many entries' places are kept: the most recently noted.
    const MOST: usize = 100;

    /// Notes the reader at `y` on entry `key`.
    pub fn note(&mut self, key: u64, y: f64) {
        self.0.retain(|(k, _)| *k != key);
        if self.0.len() >= Places::MOST {
            self.0.remove(0);
        }
        self.0.push((key, y));
    }

    /// Where the reader was on entry `key`.
    pub fn get(&self, key: u64) -> Option<f64> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, y)| *y)
    }

    /// The stored form: `key y` a line.
    pub fn write(&self) -> String {
        self.0.iter().map(|(key, y)| format!("{key} {y}\n")).collect()
    }

    /// Reads [`Places::write`]'s form, skipping any line that is not a key and a finite,
    /// non-negative place (storage is the reader's to edit).
    pub fn read(text: &str) -> Places {
        let mut places = Places::default();
        for line in text.lines() {
            let Some((key, y)) = line.split_once(' ') else { continue };
            if let (Ok(key), Ok(y)) = (key.parse(), y.parse::<f64>())
                && y.is_finite()
                && y >= 0.0
            {
                places.note(key, y);
            }
        }
        places
    }
}

fn place_of(key: u64) -> Option<f64> {
    PLACES.with_borrow(|places| places.get(key))
}

fn session_storage() -> Option<web_sys::Storage> {
    crate::browser::window()?.session_storage().ok().flatten()
}

fn load_places() -> String {
    session_storage().and_then(|s| s.get_item(PLACES_KEY).ok().flatten()).unwrap_or_default()
}

/// Stores the places as the page is left or hidden. A failed write (storage full or
/// off) loses only where a reload starts.
fn save_places() {
    if let Some(storage) = session_storage() {
        let _ = storage.set_item(PLACES_KEY, &PLACES.with_borrow(Places::write));
    }
}

/// After a reload, returns the reader to the place they were at on this page, once the
/// page is tall enough to hold it or `complete` says its content is all there (then as
/// near as the page allows). Returns whether a return is still to come or has just been
/// made: the page should then not move to an anchor or its top itself.
pub fn return_after_reload(complete: bool) -> bool {
    let Some(y) = RELOADED_AT.get() else { return false };
    let Some(window) = crate::browser::window() else { return false };
    let room = window
        .document()
        .and_then(|d| d.document_element())
        .map_or(0.0, |root| f64::from(root.scroll_height() - root.client_height()));
    if room >= y || complete {
        RELOADED_AT.set(None);
        window.scroll_to_with_x_and_y(0.0, y);
    }
    true
}

/// Forgets a return after a reload that never became possible: the reader has moved on.
fn forget_reloaded_place() {
    RELOADED_AT.set(None);
}

/// A history state naming a new entry. The key is random, so entries from before a
/// reload (whose places are forgotten) never share one with this visit's.
fn new_entry_state() -> JsValue {
    let state = js_sys::Object::new();
    let key = JsValue::from_f64((js_sys::Math::random() * 2f64.powi(53)).floor());
    let _ = js_sys::Reflect::set(&state, &JsValue::from_str(ENTRY_KEY), &key);
    state.into()
}

/// The current history entry's key, if the router gave it one.
fn entry_key() -> Option<u64> {
    let state = crate::browser::window()?.history().ok()?.state().ok()?;
    let key = js_sys::Reflect::get(&state, &JsValue::from_str(ENTRY_KEY)).ok()?.as_f64()?;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(key as u64)
}

/// Where the reader was on the page Back or Forward just returned to: taken once, by
/// the frame that scrolls there. `None` after a link (the page starts at its top).
pub fn take_remembered_scroll() -> Option<f64> {
    ARRIVED_AT.take()
}

/// A primary-button click with no modifier key: one the app follows itself. Any other
/// click on a link (a new tab, a new window, a download) is the browser's.
pub fn plain_click(e: &MouseEvent) -> bool {
    e.button() == 0 && !(e.meta_key() || e.ctrl_key() || e.shift_key() || e.alt_key())
}

/// The `<base href>`'s path without its trailing `/`: `""` at the root, `/sub` under a
/// sub-path.
fn base_path() -> String {
    let base = crate::browser::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten())
        .and_then(|uri| web_sys::Url::new(&uri).ok())
        .map(|url| url.pathname())
        .unwrap_or_default();
    base.trim_end_matches('/').to_owned()
}

/// The route the address bar names right now, read from the browser: for code that
/// runs outside a render, such as the save as a page is left.
pub fn current_route() -> Route {
    current_location(&base_path()).route
}

/// Where the address bar is now, relative to `base`.
fn current_location(base: &str) -> Location {
    let location = crate::browser::window().map(|w| w.location());
    let path = location.as_ref().and_then(|l| l.pathname().ok()).unwrap_or_default();
    let search = location.as_ref().and_then(|l| l.search().ok()).unwrap_or_default();
    let relative = path.strip_prefix(base).unwrap_or(&path);
    Location {
        route: Route::recognize(relative),
        query: search.strip_prefix('?').unwrap_or(&search).to_owned(),
    }
}

/// The pairs of a query string (`a=1&b=x%20y`), decoded; a pair without `=` has an empty
/// value.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode_component(key), decode_component(value))
        })
        .collect()
}

/// Percent-decodes a query component (`+` is a space); an invalid escape stays as it is,
/// and bytes that are not UTF-8 become U+FFFD.
pub fn decode_component(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let digit = |at: usize| bytes.get(at).copied().and_then(hex);
                match (digit(i + 1), digit(i + 2)) {
                    (Some(high), Some(low)) => {
                        out.push(u8::try_from(high * 16 + low).unwrap_or(b'?'));
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes a path segment: everything but ASCII letters, digits and `-._~`.
pub fn encode_segment(text: &str) -> String {
    encode(text, b"-._~")
}

/// Percent-encodes a query component: as a path segment, but `/`, `:` and `@` stay
/// readable (`file=after/skills/x/skill.md`); `&`, `=`, `+`, `#` and spaces do not.
pub fn encode_component(text: &str) -> String {
    encode(text, b"-._~/:@")
}

fn encode(text: &str, keep: &[u8]) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || keep.contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
