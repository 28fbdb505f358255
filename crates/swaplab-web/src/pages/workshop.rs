//! The workshop pages: `/workshop`, the presenter's view (steps, speaker notes, a timer
//! per step); `/workshop/exercises`, every exercise's short link and QR code for a
//! slide; `/workshop/receipts`, where a facilitator pastes participants' receipts.
//!
//! Everything happens in the page: no receipt, name or note ever leaves the browser.
//! The plan and the receipts are read by `swaplab_content` (`workshop`, `receipt`);
//! this module only shows them, keeps the clocks and the pasted text.

use std::rc::Rc;

use gloo::events::{EventListener, EventListenerOptions};
use gloo::timers::callback::Interval;
use swaplab_content::receipt::{Paste, read_paste, roster};
use swaplab_content::workshop::{Step, StepTarget, Workshop, workshop};
use swaplab_content::{ExerciseInfo, chapter, exercises};
use swaplab_core::markdown::{Document, render};
use swaplab_core::words::count;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlTextAreaElement, KeyboardEvent};
use yew::prelude::*;

use super::use_title;
use crate::browser;
use crate::components::{Markdown, NoticeKind, QrCode, notice};
use crate::route::Route;
use crate::router::{Link, Navigator, plain_click, use_location, use_navigator};

/// Where the receipts page keeps the pasted text, so a reload does not lose it.
pub const RECEIPTS_KEY: &str = "swaplab.receipts.v1";

/// The links between the three workshop pages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tab {
    Presenter,
    Exercises,
    Receipts,
}

fn workshop_nav(current: Tab) -> Html {
    let link = |tab: Tab, to: Route, label: &'static str| {
        let here = tab == current;
        html! {
            <li>
                <Link to={to} classes={classes!(here.then_some("current"))}>
                    <span aria-current={here.then_some("page")}>{ label }</span>
                </Link>
            </li>
        }
    };
    html! {
        <nav class="workshop-nav" aria-label="Workshop">
            <ul>
                { link(Tab::Presenter, Route::Workshop, "Presenter view") }
                { link(Tab::Exercises, Route::WorkshopExercises, "Short links and QR codes") }
                { link(Tab::Receipts, Route::Receipts, "Receipts") }
            </ul>
        </nav>
    }
}

/// What a step shows: its kind, its title and where it links.
struct StepView {
    kind: String,
    title: String,
    route: Route,
}

fn step_view(step: &Step, exercises: &[ExerciseInfo]) -> StepView {
    match &step.target {
        StepTarget::Chapter(slug) => {
            let found = chapter(slug);
            StepView {
                kind: found
                    .as_ref()
                    .map_or_else(|| "Chapter".to_owned(), |c| format!("Chapter {}", c.number)),
                title: found.map_or_else(|| slug.clone(), |c| c.title.to_owned()),
                route: Route::Chapter { chapter: slug.clone() },
            }
        }
        StepTarget::Exercise(id) => {
            let found = exercises.iter().find(|e| e.id == id.as_str());
            StepView {
                kind: found
                    .map_or_else(|| "Exercise".to_owned(), |e| format!("Exercise {}", e.number)),
                title: found.map_or_else(|| id.clone(), |e| e.title.clone()),
                route: Route::Exercise { id: id.clone() },
            }
        }
    }
}

/// `m:ss` (or `h:mm:ss`) for a duration in milliseconds.
fn clock(ms: f64) -> String {
    let seconds = (ms.max(0.0) / 1000.0).floor() as u64;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 { format!("{h}:{m:02}:{s:02}") } else { format!("{m}:{s:02}") }
}

/// One step's stopwatch: time banked by earlier runs, and when the current run began.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Timer {
    banked_ms: f64,
    started_at: Option<f64>,
}

impl Timer {
    fn elapsed(&self, now: f64) -> f64 {
        self.banked_ms + self.started_at.map_or(0.0, |start| (now - start).max(0.0))
    }

    fn pause(&mut self, now: f64) {
        self.banked_ms = self.elapsed(now);
        self.started_at = None;
    }
}

/// The presenter's state: the step on screen and every step's timer.
#[derive(Clone, Debug, PartialEq)]
struct Presenter {
    step: usize,
    timers: Vec<Timer>,
    /// The clock reading of the last render, so a tick changes the state.
    now: f64,
}

enum PresenterAction {
    /// Show this step; a running timer moves with the presenter to it.
    Go(usize),
    /// The step after (or before) the current one.
    Next,
    Previous,
    /// Start or pause the current step's timer.
    Toggle,
    /// Put the current step's timer back to zero, paused.
    Reset,
    /// Redraw the running clock.
    Tick,
}

impl Reducible for Presenter {
    type Action = PresenterAction;

    fn reduce(self: Rc<Self>, action: PresenterAction) -> Rc<Self> {
        let now = browser::now_ms();
        let mut next = (*self).clone();
        next.now = now;
        let last = next.timers.len().saturating_sub(1);
        let target = match action {
            PresenterAction::Go(i) => Some(i.min(last)),
            PresenterAction::Next => Some((next.step + 1).min(last)),
            PresenterAction::Previous => Some(next.step.saturating_sub(1)),
            PresenterAction::Toggle => {
                if let Some(timer) = next.timers.get_mut(next.step) {
                    match timer.started_at {
                        Some(_) => timer.pause(now),
                        None => timer.started_at = Some(now),
                    }
                }
                None
            }
            PresenterAction::Reset => {
                if let Some(timer) = next.timers.get_mut(next.step) {
                    *timer = Timer::default();
                }
                None
            }
            PresenterAction::Tick => None,
        };
        if let Some(target) = target
            && target != next.step
        {
            let running = next.timers.get(next.step).is_some_and(|t| t.started_at.is_some());
            if running {
                if let Some(timer) = next.timers.get_mut(next.step) {
                    timer.pause(now);
                }
                if let Some(timer) = next.timers.get_mut(target) {
                    timer.started_at = Some(now);
                }
            }
            next.step = target;
        }
        Rc::new(next)
    }
}

/// The 0-based step that `?step=N` (1-based) asks for, clamped to the plan.
fn step_from_query(query: &str, steps: usize) -> usize {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("step="))
        .and_then(|n| n.parse::<usize>().ok())
        .map_or(0, |n| n.clamp(1, steps.max(1)) - 1)
}

/// Whether a key press belongs to a form field rather than to the presenter.
fn typing_in_field(event: &KeyboardEvent) -> bool {
    let Some(element) = event.target().and_then(|t| t.dyn_into::<HtmlElement>().ok()) else {
        return false;
    };
    matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
        || element.is_content_editable()
}

/// The presenter's view.
#[component]
pub fn WorkshopPage() -> Html {
    use_title(Some("Workshop".to_owned()));
    let plan = use_memo((), |()| workshop().map(Rc::new));
    match &*plan {
        Ok(plan) => html! { <PresenterView plan={Rc::clone(plan)} /> },
        Err(error) => html! {
            <div class="page narrow workshop">
                { workshop_nav(Tab::Presenter) }
                <h1>{ "Workshop" }</h1>
                { notice(NoticeKind::Warning, None, html! { <p>{ format!("The workshop plan cannot be shown: {error}") }</p> }) }
            </div>
        },
    }
}

#[derive(Properties, PartialEq)]
struct PresenterViewProps {
    plan: Rc<Workshop>,
}

#[component]
fn PresenterView(props: &PresenterViewProps) -> Html {
    let plan = &props.plan;
    let infos = use_memo((), |()| exercises().unwrap_or_default());
    let notes = use_memo(Rc::clone(plan), |plan| {
        plan.steps.iter().map(|s| Rc::new(render(&s.notes))).collect::<Vec<Rc<Document>>>()
    });
    let state = {
        let steps = plan.steps.len();
        use_reducer(move || Presenter {
            step: step_from_query(&browser::query_string(), steps),
            timers: vec![Timer::default(); steps],
            now: browser::now_ms(),
        })
    };
    let running = state.timers.get(state.step).is_some_and(|t| t.started_at.is_some());

    // The clock redraws only while a timer runs; a paused one costs nothing.
    {
        let dispatcher = state.dispatcher();
        use_effect_with(running, move |running| {
            let interval = running
                .then(|| Interval::new(500, move || dispatcher.dispatch(PresenterAction::Tick)));
            move || drop(interval)
        });
    }
    // The step is in the URL, so a reload (or a second screen) opens the same one. It is
    // written again whenever the address loses it (a link to /workshop while the
    // presenter is here), so Back and a reload keep the step on screen.
    {
        let navigator = use_navigator();
        let query = use_location().map(|location| location.query).unwrap_or_default();
        use_effect_with((state.step, query), move |(step, query)| {
            let wanted = (step + 1).to_string();
            if *query != format!("step={wanted}") {
                match navigator {
                    Some(navigator) => {
                        navigator.replace_with_query(&Route::Workshop, &[("step", wanted)]);
                    }
                    None => browser::replace_query(&format!("step={wanted}")),
                }
            }
        });
    }
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |()| {
            let listener = browser::window().map(|window| {
                let options = EventListenerOptions::enable_prevent_default();
                EventListener::new_with_options(&window, "keydown", options, move |event| {
                    let Some(event) = event.dyn_ref::<KeyboardEvent>() else { return };
                    if event.alt_key()
                        || event.ctrl_key()
                        || event.meta_key()
                        || typing_in_field(event)
                    {
                        return;
                    }
                    let action = match event.key().as_str() {
                        "ArrowRight" | "PageDown" => PresenterAction::Next,
                        "ArrowLeft" | "PageUp" => PresenterAction::Previous,
                        _ => return,
                    };
                    event.prevent_default();
                    dispatcher.dispatch(action);
                })
            });
            move || drop(listener)
        });
    }

    let now = state.now;
    let index = state.step.min(plan.steps.len().saturating_sub(1));
    let Some(step) = plan.steps.get(index) else {
        return html! { <div class="page narrow"><h1>{ plan.title.clone() }</h1></div> };
    };
    let views: Vec<StepView> = plan.steps.iter().map(|s| step_view(s, &infos)).collect();
    let view = &views[index];
    let timer = state.timers.get(index).copied().unwrap_or_default();
    let elapsed = timer.elapsed(now);
    let suggested_ms = f64::from(step.minutes) * 60_000.0;
    let total_elapsed: f64 = state.timers.iter().map(|t| t.elapsed(now)).sum();
    let planned_through = plan.minutes_before(index) + step.minutes;
    let behind = total_elapsed > f64::from(planned_through) * 60_000.0;

    let go = |action: fn() -> PresenterAction| {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| state.dispatch(action()))
    };
    html! {
        <div class="page workshop presenter">
            { workshop_nav(Tab::Presenter) }
            <header class="presenter-head">
                <h1>{ plan.title.clone() }</h1>
                <p class="meta">
                    { format!("{} steps, {} minutes planned. ", plan.steps.len(), plan.total_minutes()) }
                    <span class="keys-hint">
                        <kbd>{ "←" }</kbd>{ " " }<kbd>{ "→" }</kbd>{ " or " }
                        <kbd>{ "PageUp" }</kbd>{ " " }<kbd>{ "PageDown" }</kbd>{ " (a clicker) move between steps." }
                    </span>
                </p>
            </header>
            <div class="presenter-grid">
                <nav class="step-list" aria-label="Steps">
                    <ol>
                        { for plan.steps.iter().zip(&views).enumerate().map(|(i, (s, v))| {
                            let here = i == index;
                            let spent = state.timers.get(i).map_or(0.0, |t| t.elapsed(now));
                            let state = state.clone();
                            html! {
                                <li class={classes!(here.then_some("current"))}>
                                    <button
                                        type="button"
                                        aria-current={here.then_some("step")}
                                        onclick={move |_: MouseEvent| state.dispatch(PresenterAction::Go(i))}
                                    >
                                        <span class="step-no">{ i + 1 }</span>
                                        <span class="step-name">
                                            <span class="step-kind">{ v.kind.clone() }</span>
                                            <span class="step-title">{ v.title.clone() }</span>
                                        </span>
                                        <span class="step-minutes">
                                            { format!("{} min", s.minutes) }
                                            if spent > 0.0 {
                                                <span class={classes!("step-spent", (spent > f64::from(s.minutes) * 60_000.0).then_some("over"))}>
                                                    { clock(spent) }
                                                </span>
                                            }
                                        </span>
                                    </button>
                                </li>
                            }
                        }) }
                    </ol>
                    <p class="plan-total meta">
                        { format!("Plan: {} min in all", plan.total_minutes()) }
                    </p>
                </nav>
                <section class="current-step" aria-labelledby="current-step-title">
                    <p class="step-position">
                        { format!(
                            "Step {} of {} · {} · planned from minute {} to {}",
                            index + 1,
                            plan.steps.len(),
                            view.kind,
                            plan.minutes_before(index),
                            planned_through
                        ) }
                    </p>
                    <h2 id="current-step-title" class="step-heading">
                        <Link to={view.route.clone()}>{ view.title.clone() }</Link>
                    </h2>
                    <div class={classes!("step-timer", running.then_some("running"), (elapsed > suggested_ms).then_some("over"))}>
                        <p class="timer-reading" role="timer" aria-live="off">
                            <span class="elapsed">{ clock(elapsed) }</span>
                            <span class="suggested">{ format!(" of {} min", step.minutes) }</span>
                        </p>
                        <button type="button" class="button" onclick={go(|| PresenterAction::Toggle)}>
                            { if running { "Pause" } else if elapsed > 0.0 { "Resume" } else { "Start" } }
                        </button>
                        <button type="button" onclick={go(|| PresenterAction::Reset)} disabled={elapsed == 0.0}>
                            { "Reset" }
                        </button>
                    </div>
                    <p class={classes!("running-total", behind.then_some("over"))}>
                        { format!(
                            "All steps so far: {} — the plan reaches the end of this step at {planned_through} min{}.",
                            clock(total_elapsed),
                            if behind { ", so you are behind" } else { "" }
                        ) }
                    </p>
                    <h3 class="notes-title">{ "Speaker notes" }</h3>
                    if step.notes.is_empty() {
                        <p class="muted">{ "No notes for this step." }</p>
                    } else {
                        <Markdown doc={Rc::clone(&notes[index])} />
                    }
                    <nav class="step-nav" aria-label="Step navigation">
                        <button type="button" onclick={go(|| PresenterAction::Previous)} disabled={index == 0}>
                            { "← Previous" }
                        </button>
                        <button type="button" onclick={go(|| PresenterAction::Next)} disabled={index + 1 >= plan.steps.len()}>
                            { "Next →" }
                        </button>
                    </nav>
                </section>
            </div>
            <section class="print-notes" aria-label="Every step's notes">
                <h2>{ "Every step" }</h2>
                { for plan.steps.iter().zip(&views).enumerate().map(|(i, (s, v))| html! {
                    <article class="print-step">
                        <h3>{ format!("{}. {} — {} ({} min, from minute {})", i + 1, v.kind, v.title, s.minutes, plan.minutes_before(i)) }</h3>
                        if s.notes.is_empty() {
                            <p class="muted">{ "No notes." }</p>
                        } else {
                            <Markdown doc={Rc::clone(&notes[i])} />
                        }
                    </article>
                }) }
            </section>
        </div>
    }
}

/// The site's absolute address of a route: origin, `<base href>` path and route.
fn absolute_url(navigator: Option<&Navigator>, route: &Route) -> String {
    let origin = browser::origin();
    let base = navigator.and_then(Navigator::basename).unwrap_or_default();
    format!("{origin}{base}{}", route.to_path())
}

/// Every exercise with its short link and QR code.
#[component]
pub fn WorkshopExercisesPage() -> Html {
    use_title(Some("Exercises for a workshop".to_owned()));
    let navigator = use_navigator();
    let infos = use_memo((), |()| exercises());
    let print = Callback::from(|_: MouseEvent| browser::print_page());
    let body = match &*infos {
        Err(error) => html! {
            { notice(NoticeKind::Warning, None, html! { <p>{ format!("The exercises cannot be listed: {error}") }</p> }) }
        },
        Ok(infos) if infos.is_empty() => {
            html! { <p class="muted">{ "There are no exercises yet." }</p> }
        }
        Ok(infos) => html! {
            <ul class="qr-cards">
                { for infos.iter().map(|info| {
                    let short = Route::ShortExercise { number: info.number.to_string() };
                    let url = absolute_url(navigator.as_ref(), &short);
                    // The link shows the whole address for the slide; clicked here, it is
                    // followed inside the app like any other.
                    let follow = {
                        let navigator = navigator.clone();
                        Callback::from(move |e: MouseEvent| {
                            let Some(navigator) = &navigator else { return };
                            if plain_click(&e) {
                                e.prevent_default();
                                navigator.push(&short);
                            }
                        })
                    };
                    html! {
                        <li class="qr-card" data-exercise={info.id}>
                            <div class="qr-card-text">
                                <p class="qr-number">{ format!("Exercise {}", info.number) }</p>
                                <h2>{ info.title.clone() }</h2>
                                <p class="meta">{ format!("{} · {} min", info.style.as_str(), info.minutes) }</p>
                                <p class="qr-goal">{ info.goal.clone() }</p>
                                <p class="short-link"><a href={url.clone()} onclick={follow}>{ url.clone() }</a></p>
                            </div>
                            <QrCode url={url} />
                        </li>
                    }
                }) }
            </ul>
        },
    };
    html! {
        <div class="page workshop workshop-exercises">
            { workshop_nav(Tab::Exercises) }
            <h1>{ "Exercises for a workshop" }</h1>
            <p class="no-print">
                { "Each exercise's short link and its QR code, to put on a slide or a printed \
                   sheet. Printing gives one exercise per page." }
                { " " }
                <button type="button" onclick={print}>{ "Print, one per page" }</button>
            </p>
            { body }
        </div>
    }
}

/// The facilitator's receipts page.
#[component]
pub fn ReceiptsPage() -> Html {
    use_title(Some("Receipts".to_owned()));
    let text = use_state(|| browser::load(RECEIPTS_KEY).unwrap_or_default());
    let save_error = use_state(|| None::<String>);
    let infos = use_memo((), |()| exercises().unwrap_or_default());
    let paste = use_memo((*text).clone(), |text| Rc::new(read_paste(text)));

    let on_input = {
        let (text, save_error) = (text.clone(), save_error.clone());
        Callback::from(move |e: InputEvent| {
            let value = e.target_unchecked_into::<HtmlTextAreaElement>().value();
            save_error.set(browser::save(RECEIPTS_KEY, &value).err());
            text.set(value);
        })
    };
    let on_clear = {
        let (text, save_error) = (text.clone(), save_error.clone());
        Callback::from(move |_: MouseEvent| {
            browser::remove(RECEIPTS_KEY);
            save_error.set(None);
            text.set(String::new());
        })
    };
    html! {
        <div class="page workshop receipts">
            { workshop_nav(Tab::Receipts) }
            <h1>{ "Receipts" }</h1>
            <p>
                { "Participants copy a receipt from an exercise page once they have finished it. \
                   Paste theirs here — one or many, from a chat, a form or an email, separated \
                   however they are — to see who got where." }
            </p>
            <p class="meta">
                { "Nothing you paste leaves this browser: the codes are read in the page, and \
                   the text is kept in this browser's storage so that a reload does not lose it \
                   (“Clear” removes it). A receipt is what a participant reports, not proof: \
                   anyone can make one, so use it to see the room, not to grade." }
            </p>
            <label class="receipts-label" for="receipts-input">{ "Pasted receipts" }</label>
            <textarea
                id="receipts-input"
                class="receipts-input"
                value={(*text).clone()}
                oninput={on_input}
                rows="8"
                spellcheck="false"
                placeholder="SL1-…"
            />
            <p class="receipts-actions">
                <button type="button" onclick={on_clear} disabled={text.is_empty()}>{ "Clear" }</button>
            </p>
            if let Some(error) = &*save_error {
                { notice(NoticeKind::Warning, None, html! { <p>{ format!("The pasted text could not be kept for a reload: {error}.") }</p> }) }
            }
            { receipts_report(&paste, &infos) }
        </div>
    }
}

fn receipts_report(paste: &Paste, infos: &[ExerciseInfo]) -> Html {
    let people = roster(paste);
    let mut columns: Vec<u32> = infos.iter().map(|e| e.number).collect();
    columns.extend(people.iter().flat_map(|p| p.done.iter().copied()));
    swaplab_core::order::sort(&mut columns);
    columns.dedup();
    let title_of = |n: u32| {
        infos
            .iter()
            .find(|e| e.number == n)
            .map_or_else(|| format!("Exercise {n}"), |e| format!("Exercise {n}: {}", e.title))
    };
    let read = paste.codes.len() - paste.errors().count();
    let errors: Vec<_> = paste.errors().collect();
    html! {
        <>
            if paste.truncated {
                { notice(NoticeKind::Warning, None, html! { <p>{ "The pasted text is very long; only its beginning was read." }</p> }) }
            }
            <p class="receipts-summary" role="status">
                { format!(
                    "{} read, from {}; {} could not be read.",
                    count(read, "receipt", "receipts"),
                    count(people.len(), "participant", "participants"),
                    errors.len()
                ) }
            </p>
            if !people.is_empty() {
                <div class="receipts-table-wrap">
                    <table class="receipts-table">
                        <caption class="sr-only">{ "Who finished which exercise" }</caption>
                        <thead>
                            <tr>
                                <th scope="col">{ "Participant" }</th>
                                { for columns.iter().map(|n| html! {
                                    <th scope="col" title={title_of(*n)}>
                                        <span class="sr-only">{ "Exercise " }</span>{ n }
                                    </th>
                                }) }
                                <th scope="col">{ "Done" }</th>
                            </tr>
                        </thead>
                        <tbody>
                            { for people.iter().map(|p| html! {
                                <tr>
                                    <th scope="row">
                                        if p.name.is_empty() { <span class="muted">{ "(no name)" }</span> } else { { p.name.clone() } }
                                        if p.receipts > 1 {
                                            <span class="merged" title="Several receipts, merged">{ format!(" ×{}", p.receipts) }</span>
                                        }
                                    </th>
                                    { for columns.iter().map(|n| if p.done.contains(n) {
                                        html! { <td class="done"><span aria-hidden="true">{ "✓" }</span><span class="sr-only">{ "done" }</span></td> }
                                    } else {
                                        html! { <td class="open"></td> }
                                    }) }
                                    <td class="count">{ p.done.len() }</td>
                                </tr>
                            }) }
                        </tbody>
                        <tfoot>
                            <tr>
                                <th scope="row">{ "Participants done" }</th>
                                { for columns.iter().map(|n| html! {
                                    <td class="count">{ people.iter().filter(|p| p.done.contains(n)).count() }</td>
                                }) }
                                <td></td>
                            </tr>
                        </tfoot>
                    </table>
                </div>
                <p class="receipts-legend meta">
                    { for columns.iter().map(|n| html! {
                        <span><strong>{ n }</strong>{ " " }{ infos.iter().find(|e| e.number == *n).map_or_else(String::new, |e| e.title.clone()) }</span>
                    }) }
                </p>
            }
            if !errors.is_empty() {
                <section class="receipt-errors" aria-labelledby="receipt-errors-title">
                    <h2 id="receipt-errors-title">{ "Codes that could not be read" }</h2>
                    <ul>
                        { for errors.iter().map(|c| html! {
                            <li>
                                <span class="line">{ format!("Line {}", c.line) }</span>{ " " }
                                <code>{ c.text.clone() }</code>{ " — " }
                                <span class="message">{ c.result.as_ref().err().cloned().unwrap_or_default() }</span>
                            </li>
                        }) }
                    </ul>
                </section>
            }
            if !paste.skipped.is_empty() {
                <details class="receipts-skipped">
                    <summary>{ format!("{} without a receipt", count(paste.skipped.len(), "line", "lines")) }</summary>
                    <ul>
                        { for paste.skipped.iter().map(|(line, text)| html! {
                            <li><span class="line">{ format!("Line {line}") }</span>{ " " }{ text.clone() }</li>
                        }) }
                    </ul>
                </details>
            }
        </>
    }
}
