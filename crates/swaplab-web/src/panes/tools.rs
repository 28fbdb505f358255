//! The tools pane, in the manner of the MCP Inspector: the `tools/list` the server
//! publishes, each tool's input and output schema, and a form that sends a `tools/call`
//! to the simulated server and shows the exact request, the exact response and what
//! the model would receive.

use std::cell::RefCell;
use std::rc::Rc;

use swaplab_core::python::McpTool;
use swaplab_core::sim::crm::Crm;
use swaplab_core::sim::json::{self, JsonValue, object, string};
use swaplab_core::sim::mcp::McpServer;
use swaplab_core::sim::run::mcp_model_view;
use swaplab_core::words::count;
use web_sys::{HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use super::analysis::SharedAnalysis;

/// Props for [`ToolsPane`].
#[derive(Properties, PartialEq)]
pub struct ToolsPaneProps {
    /// The analysis shown.
    pub analysis: SharedAnalysis,
    /// The tool selected at first (a chapter widget's `tool:`).
    #[prop_or_default]
    pub tool: Option<AttrValue>,
    /// The arguments the form starts with, JSON (a chapter widget's `arguments:`).
    #[prop_or_default]
    pub arguments: Option<AttrValue>,
}

fn pretty(value: &JsonValue) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// Arguments to start from: each required argument with an empty value of its type,
/// and the tutorial-shaped ones with a customer of the seed.
fn sample_arguments(tool: &McpTool, server: &McpServer, crm: &Crm) -> String {
    let contact = crm.data.contacts.first();
    let entries: Vec<(String, JsonValue)> = tool
        .input_schema
        .properties()
        .iter()
        .filter(|(name, _)| tool.input_schema.required_names().contains(name))
        .map(|(name, schema)| {
            let value = match (name.as_str(), schema.json_types().first().copied(), contact) {
                ("email", _, Some(c)) => string(&c.email),
                (n, _, Some(c)) if n.ends_with("_id") || n == "id" => string(&c.id),
                (_, Some("integer"), _) => JsonValue::Int(0),
                (_, Some("number"), _) => JsonValue::Float(0.0),
                (_, Some("boolean"), _) => JsonValue::Bool(false),
                (_, Some("array"), _) => JsonValue::Array(Vec::new()),
                (_, Some("object"), _) => JsonValue::Object(Vec::new()),
                _ => string(""),
            };
            (name.clone(), value)
        })
        .collect();
    let _ = server;
    pretty(&JsonValue::Object(entries))
}

/// What one sent call showed.
#[derive(Clone, PartialEq)]
struct Sent {
    request: String,
    response: String,
    model: String,
    requests: Vec<String>,
}

/// The tools pane.
#[component]
pub fn ToolsPane(props: &ToolsPaneProps) -> Html {
    let analysis = props.analysis.clone();
    let selected = {
        let (analysis, tool) = (props.analysis.clone(), props.tool.clone());
        use_state(move || {
            let tools = analysis.sim.server.as_ref().map(|s| s.module.tools.as_slice());
            tool.and_then(|name| tools?.iter().position(|t| t.name == name.as_str())).unwrap_or(0)
        })
    };
    // The widget's arguments are used until the reader picks another tool.
    let given_arguments = use_mut_ref(|| props.arguments.clone());
    let args_text = use_state(String::new);
    let sent = use_state(|| None::<Result<Sent, String>>);
    // One CRM per analysis, so notes made here accumulate until the files change.
    let crm =
        use_memo(props.analysis.clone(), |a| Rc::new(RefCell::new(Crm::new(a.sim.seed.clone()))));
    let next_id = use_mut_ref(|| 1i64);

    let Some(server) = analysis.sim.server.as_ref() else {
        return html! {
            <div class="result tools-pane">
                <p class="muted">{ "The workspace has no MCP server file (server/…py), so there is no tools/list to show." }</p>
            </div>
        };
    };
    let tools = &server.module.tools;
    let index = (*selected).min(tools.len().saturating_sub(1));
    let current = tools.get(index);
    {
        // A fresh set of sample arguments whenever the tool or the files change.
        let args_text = args_text.clone();
        let sample = match given_arguments.borrow().as_ref() {
            Some(given) => given.to_string(),
            None => current.map(|t| sample_arguments(t, server, &crm.borrow())).unwrap_or_default(),
        };
        use_effect_with((index, props.analysis.clone()), move |_| {
            args_text.set(sample);
        });
    }
    let on_select = {
        let sent = sent.clone();
        Callback::from(move |e: Event| {
            given_arguments.borrow_mut().take();
            let select: HtmlSelectElement = e.target_unchecked_into();
            selected.set(select.selected_index().max(0).unsigned_abs() as usize);
            sent.set(None);
        })
    };
    let on_args = {
        let args_text = args_text.clone();
        Callback::from(move |e: InputEvent| {
            let area: HtmlTextAreaElement = e.target_unchecked_into();
            args_text.set(area.value());
        })
    };
    let on_send = {
        let (analysis, args_text, sent, crm, next_id) =
            (analysis.clone(), args_text.clone(), sent.clone(), crm, next_id);
        let name = current.map(|t| t.name.clone()).unwrap_or_default();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(server) = analysis.sim.server.as_ref() else { return };
            let arguments = match json::parse(&args_text) {
                Ok(value) => value,
                Err(error) => {
                    sent.set(Some(Err(format!("The arguments are not JSON: {error}"))));
                    return;
                }
            };
            let id = *next_id.borrow();
            *next_id.borrow_mut() += 1;
            let request = object([
                ("jsonrpc", string("2.0")),
                ("id", JsonValue::Int(id)),
                ("method", string("tools/call")),
                ("params", object([("name", string(&name)), ("arguments", arguments)])),
            ]);
            let mut crm = crm.borrow_mut();
            let before = crm.log.len();
            let exchange = server.handle(&request, &mut crm);
            let response = exchange.response.unwrap_or(JsonValue::Null);
            let result = json::get(&response, "result");
            sent.set(Some(Ok(Sent {
                request: pretty(&request),
                response: pretty(&response),
                model: mcp_model_view(&name, result),
                requests: crm.log[before..].iter().map(|r| r.line()).collect(),
            })));
        })
    };

    html! {
        <div class="result tools-pane">
            <p class="muted small">{ format!("{} publishes {} from {}.", server.name(), count(tools.len(), "tool", "tools"), server.file) }</p>
            { for tools.iter().map(|tool| html! {
                <details class="tool" open={tools.len() <= 3}>
                    <summary>
                        <code class="tool-name">{ tool.name.clone() }</code>
                        { format!(" requires {:?}", tool.required_args()) }
                        if tool.output_schema.is_none() { <span class="badge warn-badge">{ "no outputSchema" }</span> }
                    </summary>
                    <p>{ tool.description.clone() }</p>
                    <h4>{ "inputSchema" }</h4>
                    <pre class="json">{ tool.input_schema.to_python_json() }</pre>
                    <h4>{ "outputSchema" }</h4>
                    <pre class="json">{ tool.output_schema.as_ref().map_or_else(|| "— none: the result reaches the agent as text blocks".to_owned(), |s| s.to_python_json()) }</pre>
                </details>
            }) }
            if !tools.is_empty() {
                <form class="call-form" onsubmit={on_send}>
                    <h3>{ "Send a tools/call" }</h3>
                    <label>{ "Tool " }
                        <select onchange={on_select} aria-label="Tool to call">
                            { for tools.iter().enumerate().map(|(i, t)| html! { <option selected={i == index}>{ t.name.clone() }</option> }) }
                        </select>
                    </label>
                    <label class="block">{ "Arguments (JSON)" }
                        <textarea class="code small-code" rows="5" value={(*args_text).clone()} oninput={on_args} spellcheck="false" />
                    </label>
                    <button type="submit">{ "Send tools/call" }</button>
                </form>
            }
            { match &*sent {
                None => html! {},
                Some(Err(message)) => html! { <p class="verdict fail" role="alert">{ message.clone() }</p> },
                Some(Ok(sent)) => html! {
                    <div class="exchange">
                        <h4>{ "Request" }</h4><pre class="json">{ sent.request.clone() }</pre>
                        <h4>{ "Response" }</h4><pre class="json">{ sent.response.clone() }</pre>
                        <h4>{ "What the model receives" }</h4><pre class="json model-view">{ sent.model.clone() }</pre>
                        if !sent.requests.is_empty() {
                            <h4>{ "CRM requests" }</h4>
                            <ul class="requests">{ for sent.requests.iter().map(|r| html! { <li><code>{ r.clone() }</code></li> }) }</ul>
                        }
                    </div>
                },
            } }
        </div>
    }
}
