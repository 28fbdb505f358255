//! Fuzz target `permalink`: the permalink decoder (`permalink::decode`, the built-in
//! examples as the example form's bases). Input that starts with `v` or `#` is a fragment
//! as typed into the address bar; any other input is a raw payload (the first byte's low
//! bit picks the full or the example form) wrapped by `permalink::pack`, so the fuzzer
//! reaches the payload reader behind the deflate layer. Whatever decodes must survive the
//! round trip: encode → decode gives the same link, and encoding that again gives the
//! same string.
#![no_main]

use libfuzzer_sys::fuzz_target;
use swaplab_core::permalink::{Form, decode, encode, pack};

fn check(fragment: &str) {
    let base = |id: &str| swaplab_fuzz::example(id);
    let link = match decode(fragment, &base) {
        Ok(link) => link,
        Err(error) => {
            let _ = error.to_string();
            return;
        }
    };
    let pristine = link.example.as_deref().and_then(swaplab_fuzz::example);
    let encoded = encode(&link, pristine.as_ref());
    let again = decode(&encoded, &base)
        .unwrap_or_else(|error| panic!("a decoded link re-encodes to one that fails: {error}"));
    assert_eq!(again, link, "decode → encode → decode changed the link");
    assert_eq!(encode(&again, pristine.as_ref()), encoded, "encoding is not deterministic");
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((b'v' | b'#', _)) | None => check(&swaplab_fuzz::text(data)),
        Some((&selector, payload)) => {
            let form = if selector & 1 == 0 { Form::Full } else { Form::Example };
            check(&pack(form, payload));
        }
    }
});
