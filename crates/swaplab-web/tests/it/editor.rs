//! The editor in a real DOM: the highlighted copy behind the textarea, diagnostics
//! underlined, marked in the gutter and listed as buttons that place the caret, and the
//! keys (Tab, Shift-Tab, Enter, Escape then Tab) that change the text or leave it alone.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::timers::future::TimeoutFuture;
use swaplab_core::diagnostic::Severity;
use swaplab_web::components::{Editor, EditorDiagnostic, EditorProps};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::{Element, HtmlElement, HtmlTextAreaElement};
use yew::{AttrValue, Callback};

const TEXT: &str =
    "agent:\n  id: support-desk # <img src=x onerror=alert(1)>\n  name: Caf\u{e9} 😀 desk\n";

/// What the editor reported through `on_change`.
type Changes = Rc<RefCell<Vec<String>>>;

thread_local! {
    /// The lines the editor reported the caret on, through `on_cursor`.
    static CARETS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Mounts an editor on `TEXT` with `diagnostics` and waits for it to render.
async fn mount(diagnostics: Vec<EditorDiagnostic>) -> (Element, HtmlTextAreaElement, Changes) {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let changes: Changes = Rc::default();
    let props = EditorProps {
        text: AttrValue::from(TEXT),
        label: AttrValue::from("Contents of after/agent.yml"),
        on_change: {
            let changes = changes.clone();
            Callback::from(move |text: String| changes.borrow_mut().push(text))
        },
        focus_line: None,
        path: AttrValue::default(),
        diagnostics,
        on_cursor: Some(Callback::from(|line: u32| CARETS.with(|c| c.borrow_mut().push(line)))),
    };
    yew::Renderer::<Editor>::with_root_and_props(root.clone(), props).render();
    TimeoutFuture::new(10).await;
    let area = root.query_selector("textarea").unwrap().unwrap().unchecked_into();
    (root, area, changes)
}

fn find(root: &Element, selector: &str) -> Element {
    root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no {selector}"))
}

fn all_text(root: &Element, selector: &str) -> Vec<String> {
    let found = root.query_selector_all(selector).unwrap();
    (0..found.length()).map(|i| found.item(i).unwrap().text_content().unwrap_or_default()).collect()
}

fn diagnostic(
    (line, column): (u32, u32),
    (end_line, end_column): (u32, u32),
    severity: Severity,
    message: &str,
) -> EditorDiagnostic {
    EditorDiagnostic { line, column, end_line, end_column, severity, message: message.to_owned() }
}

/// Sends a keydown as a keyboard would; `true` when the editor let the browser act on it.
fn press(area: &HtmlTextAreaElement, key: &str, shift: bool) -> bool {
    let send = js_sys::Function::new_with_args(
        "el, key, shiftKey",
        "return el.dispatchEvent(new KeyboardEvent('keydown', \
         {key, shiftKey, bubbles: true, cancelable: true}));",
    );
    send.call3(&JsValue::NULL, area, &key.into(), &shift.into()).unwrap().as_bool().unwrap()
}

fn selection(area: &HtmlTextAreaElement) -> (u32, u32) {
    (area.selection_start().unwrap().unwrap(), area.selection_end().unwrap().unwrap())
}

#[wasm_bindgen_test]
async fn the_copy_is_the_text_coloured_with_markup_shown_as_text() {
    let (root, area, _) = mount(Vec::new()).await;
    let view = find(&root, ".code-view");
    assert_eq!(view.get_attribute("aria-hidden").as_deref(), Some("true"));
    assert_eq!(view.text_content().unwrap(), format!("{TEXT}\n"));
    assert_eq!(area.value(), TEXT);
    assert_eq!(all_text(&root, ".code-view .key"), ["agent", "id", "name"]);
    assert_eq!(all_text(&root, ".code-view .comment"), ["# <img src=x onerror=alert(1)>"]);
    assert!(root.query_selector(".code-view img").unwrap().is_none());
    assert_eq!(find(&root, ".gutter").text_content().unwrap(), "1\n2\n3\n4\n");
    assert!(root.query_selector(".editor-problems").unwrap().is_none());
    // The way out of the editor is part of its description.
    let hint = area.get_attribute("aria-describedby").unwrap();
    assert!(find(&root, &format!("#{hint}")).text_content().unwrap().contains("Esc, then Tab"));
    root.remove();
}

#[wasm_bindgen_test]
async fn diagnostics_are_underlined_marked_and_listed() {
    let (root, area, _) = mount(vec![
        diagnostic((2, 7), (2, 19), Severity::Error, "unknown agent id \"<b>x</b>\""),
        diagnostic((3, 14), (3, 14), Severity::Warning, "the emoji"),
        diagnostic((3, 20), (3, 20), Severity::Info, "at the end of the line"),
    ])
    .await;
    // The copy's text is unchanged: underlines only wrap it.
    assert_eq!(find(&root, ".code-view").text_content().unwrap(), format!("{TEXT}\n"));
    let error = find(&root, ".code-view .diag.error");
    assert_eq!(error.text_content().unwrap(), "support-desk");
    assert_eq!(error.get_attribute("title").unwrap(), "unknown agent id \"<b>x</b>\"");
    assert!(root.query_selector(".code-view b").unwrap().is_none());
    // A zero-width range underlines the character there, or marks the end of the line.
    assert_eq!(all_text(&root, ".code-view .diag.warning"), ["😀"]);
    assert!(root.query_selector(".code-view .diag.info.eol").unwrap().is_some());
    assert_eq!(all_text(&root, ".gutter .mark.error"), ["2"]);
    assert_eq!(all_text(&root, ".gutter .mark.warning"), ["3"]);
    assert_eq!(find(&root, ".gutter").text_content().unwrap(), "1\n2\n3\n4\n");
    assert_eq!(
        all_text(&root, ".editor-problems button"),
        [
            "after/agent.yml:2:7: unknown agent id \"<b>x</b>\"",
            "after/agent.yml:3:14: the emoji",
            "after/agent.yml:3:20: at the end of the line",
        ]
    );

    // The reader has typed since: the caret goes where the textarea's own text says.
    area.set_value(&format!("{TEXT}typed\n"));
    let buttons = root.query_selector_all(".editor-problems button").unwrap();
    let button = |i: u32| buttons.item(i).unwrap().unchecked_into::<HtmlElement>();
    button(1).click();
    let document = web_sys::window().unwrap().document().unwrap();
    assert_eq!(document.active_element().as_ref(), Some(area.as_ref()));
    // "agent:\n" (7) + line 2 (49 + 1) + "  name: Café " (13): 70 UTF-16 units.
    assert_eq!(selection(&area), (70, 70));
    button(2).click();
    // "😀 desk" is 7 UTF-16 units after that, the end of the line.
    assert_eq!(selection(&area), (77, 77));
    assert_eq!(area.value(), format!("{TEXT}typed\n"), "nothing the reader typed is lost");
    root.remove();
}

#[wasm_bindgen_test]
async fn tab_shift_tab_and_enter_edit_and_escape_lets_tab_leave() {
    let (root, area, changes) = mount(Vec::new()).await;
    area.focus().unwrap();

    // Tab at a caret: two spaces, the caret after them.
    area.set_selection_range(0, 0).unwrap();
    assert!(!press(&area, "Tab", false), "Tab is the editor's");
    assert_eq!(area.value(), format!("  {TEXT}"));
    assert_eq!(selection(&area), (2, 2));
    assert_eq!(changes.borrow().last().map(String::as_str), Some(area.value().as_str()));
    // Shift-Tab takes them away again.
    assert!(!press(&area, "Tab", true));
    assert_eq!(area.value(), TEXT);
    assert_eq!(selection(&area), (0, 0));

    // A selection over lines 2 and 3 (ending at the start of line 4: that one stays).
    let (start, end) = (9, u32::try_from(TEXT.encode_utf16().count()).unwrap());
    area.set_selection_range(start, end).unwrap();
    press(&area, "Tab", false);
    let lines: Vec<&str> = TEXT.split('\n').collect();
    assert_eq!(area.value(), format!("{}\n  {}\n  {}\n", lines[0], lines[1], lines[2]));
    assert_eq!(selection(&area), (start + 2, end + 4));
    press(&area, "Tab", true);
    press(&area, "Tab", true);
    assert_eq!(area.value(), format!("{}\n{}\n{}\n", lines[0], &lines[1][2..], &lines[2][2..]));
    press(&area, "Tab", false);
    assert_eq!(area.value(), TEXT);

    // Enter keeps the indentation of the line it breaks.
    let after_id = u32::try_from(TEXT.find("support-desk").unwrap()).unwrap();
    area.set_selection_range(after_id, after_id).unwrap();
    assert!(!press(&area, "Enter", false));
    assert!(area.value().starts_with("agent:\n  id: \n  support-desk"), "{}", area.value());
    assert_eq!(selection(&area), (after_id + 3, after_id + 3));
    // Before text that carries its own blanks, only what is missing is added.
    area.set_value(TEXT);
    area.set_selection_range(12, 12).unwrap();
    assert!(!press(&area, "Enter", false));
    assert!(area.value().starts_with("agent:\n  id:\n  support-desk"), "{}", area.value());
    assert_eq!(selection(&area), (14, 14));
    // On a line without indentation Enter is the browser's own.
    area.set_selection_range(3, 3).unwrap();
    assert!(press(&area, "Enter", false));

    // Escape, then Tab: the browser moves the focus on; the next Tab indents again.
    let before = area.value();
    assert!(press(&area, "Escape", false));
    assert!(press(&area, "Shift", true), "a modifier alone changes nothing");
    assert!(press(&area, "Tab", true), "Escape then Shift-Tab is the browser's");
    assert_eq!(area.value(), before);
    assert!(!press(&area, "Tab", false));
    root.remove();
}

#[wasm_bindgen_test]
async fn the_caret_line_is_reported_in_lines_of_the_text_not_utf16_units() {
    let (_root, area, _) = mount(Vec::new()).await;
    CARETS.with(|c| c.borrow_mut().clear());
    // After the emoji on line 3: UTF-16 counts it twice, lines must not care.
    let value = area.value();
    let at = value.find("desk\n").map(|b| value[..b].encode_utf16().count()).unwrap();
    area.set_selection_range(at as u32, at as u32).unwrap();
    let keyup = web_sys::KeyboardEvent::new("keyup").unwrap();
    area.dispatch_event(&keyup).unwrap();
    area.set_selection_range(0, 0).unwrap();
    area.dispatch_event(&web_sys::MouseEvent::new("click").unwrap()).unwrap();
    TimeoutFuture::new(10).await;
    // Moving the selection fires `select` too, so the same line may be reported again.
    let carets = CARETS.with(|c| c.borrow().clone());
    assert_eq!(carets.first(), Some(&3), "{carets:?}");
    assert_eq!(carets.last(), Some(&1), "{carets:?}");
    assert!(carets.iter().all(|l| [1, 3].contains(l)), "{carets:?}");
}
