//! The participant's receipt: their name (kept under `PARTICIPANT_KEY`), the exercises
//! their progress has as done (`PROGRESS_KEY`), the receipt code for both, and a button
//! that copies it.
//!
//! It only reads progress; it never writes it. It sends nothing anywhere: the code is
//! shown for the participant to paste where their facilitator asks.

use swaplab_content::progress::{PARTICIPANT_KEY, PROGRESS_KEY, Progress};
use swaplab_content::receipt::{
    MAX_PARTICIPANT_CHARS, clean_participant, done_numbers, encode_receipt,
};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::browser;

/// How often the box looks at the stored progress, which the exercise page changes
/// while the box is on screen (a same-tab write fires no `storage` event).
const POLL_MS: u32 = 1000;

/// What the last press of "Copy receipt" did.
#[derive(Clone, PartialEq)]
enum CopyStatus {
    Idle,
    Copied,
    Selected,
}

/// The receipt panel.
#[component]
pub fn ReceiptBox() -> Html {
    let name = use_state(|| browser::load(PARTICIPANT_KEY).unwrap_or_default());
    let progress = use_state_eq(|| browser::load(PROGRESS_KEY).unwrap_or_default());
    let save_error = use_state(|| None::<String>);
    let status = use_state(|| CopyStatus::Idle);
    let code_ref = use_node_ref();
    {
        let progress = progress.clone();
        use_effect_with((), move |()| {
            let interval = gloo::timers::callback::Interval::new(POLL_MS, move || {
                progress.set(browser::load(PROGRESS_KEY).unwrap_or_default());
            });
            move || drop(interval)
        });
    }

    let done = done_numbers(&Progress::decode(&progress));
    let participant = clean_participant(&name);
    let code = encode_receipt(&participant, &done);

    let on_name = {
        let (name, save_error, status) = (name.clone(), save_error.clone(), status.clone());
        Callback::from(move |e: InputEvent| {
            let value: String = e.target_unchecked_into::<HtmlInputElement>().value();
            save_error.set(browser::save(PARTICIPANT_KEY, &value).err());
            status.set(CopyStatus::Idle);
            name.set(value);
        })
    };
    let on_copy = {
        let (code, status, code_ref) = (code.clone(), status.clone(), code_ref.clone());
        Callback::from(move |_: MouseEvent| {
            let select = {
                let (status, code_ref) = (status.clone(), code_ref.clone());
                move || {
                    if let Some(input) = code_ref.cast::<HtmlInputElement>() {
                        let _ = input.focus();
                        input.select();
                    }
                    status.set(CopyStatus::Selected);
                }
            };
            match browser::clipboard_write(&code) {
                Some(promise) => {
                    let status = status.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        match wasm_bindgen_futures::JsFuture::from(promise).await {
                            Ok(_) => status.set(CopyStatus::Copied),
                            Err(_) => select(),
                        }
                    });
                }
                None => select(),
            }
        })
    };
    let on_focus_code = Callback::from(|e: FocusEvent| {
        e.target_unchecked_into::<HtmlInputElement>().select();
    });

    let done_text = match done.as_slice() {
        [] => "No exercise done yet".to_owned(),
        [one] => format!("Exercise {one} done"),
        many => format!(
            "Exercises {} done",
            many.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
        ),
    };
    html! {
        <section class="receipt-box" aria-labelledby="receipt-box-title">
            <h2 id="receipt-box-title">{ "Your receipt" }</h2>
            <p class="receipt-what">
                { "A receipt is a short code that says who you are and which exercises you \
                   finished, for your workshop's facilitator. It holds only your name and \
                   those numbers; it is what you report, not proof, and nothing is sent \
                   anywhere — paste it where you are asked." }
            </p>
            <label class="receipt-name">
                <span>{ "Your name" }</span>
                <input
                    type="text"
                    value={(*name).clone()}
                    oninput={on_name}
                    maxlength={MAX_PARTICIPANT_CHARS.to_string()}
                    autocomplete="name"
                    spellcheck="false"
                    placeholder="as your facilitator knows you"
                />
            </label>
            if let Some(error) = &*save_error {
                <p class="receipt-warning" role="alert">
                    { format!("Your name could not be kept for next time: {error}.") }
                </p>
            }
            <p class="receipt-done">{ done_text }</p>
            if participant.is_empty() {
                <p class="receipt-hint">{ "Type your name to get your receipt." }</p>
            } else {
                <div class="receipt-code-row">
                    <input
                        ref={code_ref}
                        class="receipt-code"
                        type="text"
                        readonly=true
                        value={code}
                        aria-label="Receipt code"
                        onfocus={on_focus_code}
                        spellcheck="false"
                    />
                    <button type="button" class="button" onclick={on_copy}>{ "Copy receipt" }</button>
                </div>
                <p class="receipt-status" role="status">
                    { match *status {
                        CopyStatus::Idle => "",
                        CopyStatus::Copied => "Copied. Paste it where your facilitator asks.",
                        CopyStatus::Selected => "Selected: press Ctrl+C (⌘C on a Mac) to copy it.",
                    } }
                </p>
            }
        </section>
    }
}
