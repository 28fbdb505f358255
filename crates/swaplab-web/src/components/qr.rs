//! A QR code of a URL, drawn as an SVG: one `<path>` of dark modules on a light square
//! with the standard four-module quiet zone, built as Yew nodes (never an HTML string).
//!
//! The colours are fixed black on white in both themes: many scanners cannot read a
//! light-on-dark code. A URL too long for any QR version shows a sentence instead; it
//! never panics.

use qrcodegen::{QrCode as Code, QrCodeEcc};
use yew::prelude::*;

/// Modules of light margin around the code, as the standard asks.
const QUIET: i32 = 4;

/// Props for [`QrCode`].
#[derive(Properties, PartialEq)]
pub struct QrCodeProps {
    /// The text to encode: a full URL.
    pub url: AttrValue,
    /// Extra classes for the `<svg>`.
    #[prop_or_default]
    pub class: Classes,
}

/// The QR code of `url`.
#[component]
pub fn QrCode(props: &QrCodeProps) -> Html {
    let drawing = use_memo(props.url.clone(), |url| draw(url));
    let Some((size, path)) = (*drawing).clone() else {
        return html! { <p class="qr-missing">{ "This link is too long for a QR code." }</p> };
    };
    let view = size + 2 * QUIET;
    html! {
        <svg
            class={classes!("qr", props.class.clone())}
            xmlns="http://www.w3.org/2000/svg"
            viewBox={format!("0 0 {view} {view}")}
            role="img"
            aria-label={format!("QR code for {}", props.url)}
            data-modules={size.to_string()}
            shape-rendering="crispEdges"
        >
            <rect width={view.to_string()} height={view.to_string()} fill="#ffffff" />
            <path d={path} fill="#000000" />
        </svg>
    }
}

/// The code's size in modules and an SVG path with one rectangle per horizontal run of
/// dark modules, offset by the quiet zone. `None` when the text does not fit.
fn draw(text: &str) -> Option<(i32, String)> {
    let code = Code::encode_text(text, QrCodeEcc::Medium).ok()?;
    let size = code.size();
    let mut path = String::new();
    for y in 0..size {
        let mut x = 0;
        while x < size {
            if !code.get_module(x, y) {
                x += 1;
                continue;
            }
            let start = x;
            while x < size && code.get_module(x, y) {
                x += 1;
            }
            let run = x - start;
            path.push_str(&format!("M{},{}h{run}v1h-{run}z", start + QUIET, y + QUIET));
        }
    }
    Some((size, path))
}
