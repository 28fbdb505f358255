//! Components rendered into a real DOM.

use std::rc::Rc;

use gloo::timers::future::TimeoutFuture;
use swaplab_core::markdown::render;
use swaplab_web::components::{Markdown, MarkdownProps};
use wasm_bindgen_test::wasm_bindgen_test;

fn mount_point() -> web_sys::Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let div = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&div).unwrap();
    div
}

/// Markdown renders outside a router (no navigator): links stay plain anchors.
#[wasm_bindgen_test]
async fn markdown_shows_raw_html_as_text_and_drops_unsafe_links() {
    let source = "# Title\n\n<img src=x onerror=alert(1)> and <script>alert(2)</script>\n\n\
                  [bad](javascript:alert(3)) [good](https://example.com/) `code`";
    let root = mount_point();
    let props = MarkdownProps { doc: Rc::new(render(source)) };
    yew::Renderer::<Markdown>::with_root_and_props(root.clone(), props).render();
    TimeoutFuture::new(10).await;

    let html = root.inner_html();
    assert!(root.query_selector("h1#title").unwrap().is_some(), "{html}");
    assert!(root.query_selector("img, script").unwrap().is_none(), "{html}");
    assert!(!html.contains("onerror=\"") && !html.contains("javascript:"), "{html}");
    let text = root.text_content().unwrap_or_default();
    assert!(text.contains("<img src=x onerror=alert(1)>"), "the payload is visible text: {text}");
    let hrefs: Vec<String> = {
        let links = root.query_selector_all("a[href]").unwrap();
        (0..links.length())
            .map(|i| {
                let a: web_sys::Element =
                    wasm_bindgen::JsCast::unchecked_into(links.item(i).unwrap());
                a.get_attribute("href").unwrap()
            })
            .collect()
    };
    assert_eq!(hrefs, ["https://example.com/"]);
    root.remove();
}
