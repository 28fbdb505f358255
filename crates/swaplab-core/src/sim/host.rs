//! What a tool body reaches while it runs: the mock CRM's client functions and, for a
//! Rasa tool, `context.memory`. The interpreter calls [`ToolHost`]; the host records every
//! client call with the requests it made, so a run can show which line touched which
//! record.

use serde::Serialize;

use super::crm::{CLIENT_FUNCTIONS, Crm, CrmRequest};
use super::json::JsonValue;
use crate::diagnostic::Span;
use crate::python::{Delivery, Host, HostError, HttpRequest, PyValue};

/// A `context.memory` for a Rasa tool: resolves and applies reads and writes.
pub trait ToolMemory {
    /// `context.memory.get(path, default)`.
    fn get(&mut self, path: &str, default: PyValue) -> PyValue;
    /// `context.memory.set(path, value)`; `Err` is the `MemoryWriteError` text.
    fn set(&mut self, path: &str, value: &JsonValue) -> Result<(), String>;
}

/// One client call a tool body made.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClientCall {
    /// `list_ticket_ids`.
    pub function: String,
    /// Its arguments by parameter name, as the client turned them into text.
    pub args: Vec<(String, String)>,
    /// Where the call is in the tool's file.
    pub span: Span,
    /// The requests it made (usually one).
    pub requests: Vec<CrmRequest>,
    /// The exception it raised, if any.
    pub error: Option<String>,
}

/// One memory access a tool body made.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemoryUse {
    /// `get` or `set`.
    pub op: &'static str,
    /// The path as written.
    pub path: String,
    /// The value read or written (JSON).
    pub value: JsonValue,
    /// Where the call is.
    pub span: Span,
    /// The refusal, for a write that raised.
    pub error: Option<String>,
}

/// The host a tool body runs against.
pub struct ToolHost<'a> {
    /// The CRM.
    pub crm: &'a mut Crm,
    /// Memory, for a Rasa tool; `None` for an MCP tool.
    pub memory: Option<&'a mut dyn ToolMemory>,
    /// Client calls made, in order.
    pub calls: Vec<ClientCall>,
    /// Memory accesses made, in order.
    pub memory_uses: Vec<MemoryUse>,
}

impl<'a> ToolHost<'a> {
    /// A host over this CRM, with or without memory.
    pub fn new(crm: &'a mut Crm, memory: Option<&'a mut dyn ToolMemory>) -> ToolHost<'a> {
        ToolHost { crm, memory, calls: Vec::new(), memory_uses: Vec::new() }
    }
}

fn type_error(message: String) -> HostError {
    HostError { exc_type: "TypeError".into(), message }
}

impl Host for ToolHost<'_> {
    fn crm_call(
        &mut self,
        function: &str,
        args: &[PyValue],
        kwargs: &[(String, PyValue)],
        span: Span,
    ) -> Result<PyValue, HostError> {
        let Some((_, params)) = CLIENT_FUNCTIONS.iter().find(|(name, _)| *name == function) else {
            // Our wording: the mock client has only the five functions of the tutorial.
            return Err(HostError {
                exc_type: "AttributeError".into(),
                message: format!("'HubSpotClient' object has no attribute '{function}'"),
            });
        };
        if args.len() > params.len() {
            return Err(type_error(format!(
                "{function}() takes {} positional argument(s) but {} were given",
                params.len(),
                args.len()
            )));
        }
        let mut bound: Vec<Option<&PyValue>> = vec![None; params.len()];
        for (i, value) in args.iter().enumerate() {
            bound[i] = Some(value);
        }
        for (name, value) in kwargs {
            let Some(i) = params.iter().position(|p| p == name) else {
                return Err(type_error(format!(
                    "{function}() got an unexpected keyword argument '{name}'"
                )));
            };
            if bound[i].is_some() {
                return Err(type_error(format!(
                    "{function}() got multiple values for argument '{name}'"
                )));
            }
            bound[i] = Some(value);
        }
        let mut texts = Vec::with_capacity(params.len());
        for (i, param) in params.iter().enumerate() {
            let Some(value) = bound[i] else {
                return Err(type_error(format!(
                    "{function}() missing 1 required positional argument: '{param}'"
                )));
            };
            texts.push(((*param).to_owned(), value.str()));
        }
        let first = self.crm.log.len();
        let text = |i: usize| texts[i].1.as_str();
        let result: Result<PyValue, super::crm::CrmError> = match function {
            "search_contact_by_email" => Ok(self
                .crm
                .search_contact_by_email(text(0))
                .map_or(PyValue::None, |v| PyValue::from_json(&v))),
            "get_contact" => self.crm.get_contact(text(0)).map(|v| PyValue::from_json(&v)),
            "list_ticket_ids" => self
                .crm
                .list_ticket_ids(text(0))
                .map(|ids| PyValue::List(ids.into_iter().map(PyValue::Str).collect())),
            "get_ticket" => self.crm.get_ticket(text(0)).map(|v| PyValue::from_json(&v)),
            _ => self.crm.create_note(text(0), text(1)).map(PyValue::Str),
        };
        let requests = self.crm.log[first..].to_vec();
        let error = result.as_ref().err().map(|e| e.message.clone());
        self.calls.push(ClientCall {
            function: function.to_owned(),
            args: texts,
            span,
            requests,
            error,
        });
        result.map_err(|e| HostError { exc_type: e.exc_type.into(), message: e.message })
    }

    fn http(&mut self, request: &HttpRequest, span: Span) -> Delivery {
        let first = self.crm.log.len();
        let delivery = self.crm.http(request);
        let error = match &delivery {
            Delivery::Answered(_) => None,
            Delivery::Refused => {
                Some(format!("nothing listens at {}:{}", request.host, request.port))
            }
            Delivery::Disconnected => {
                Some("the server closed the connection without an answer".to_owned())
            }
            Delivery::Stopped(diagnostic) => Some(diagnostic.message.clone()),
        };
        self.calls.push(ClientCall {
            function: format!("{} {}", request.method, request.target()),
            args: Vec::new(),
            span,
            requests: self.crm.log[first..].to_vec(),
            error,
        });
        delivery
    }

    fn memory_get(&mut self, path: &str, default: PyValue, span: Span) -> PyValue {
        let value = match self.memory.as_deref_mut() {
            Some(memory) => memory.get(path, default),
            None => default,
        };
        self.memory_uses.push(MemoryUse {
            op: "get",
            path: path.to_owned(),
            value: value.to_json(),
            span,
            error: None,
        });
        value
    }

    fn memory_set(&mut self, path: &str, value: PyValue, span: Span) -> Result<(), HostError> {
        let json = value.to_json();
        let outcome = match self.memory.as_deref_mut() {
            Some(memory) => memory.set(path, &json),
            None => Err("no memory is available to this tool".to_owned()),
        };
        self.memory_uses.push(MemoryUse {
            op: "set",
            path: path.to_owned(),
            value: json,
            span,
            error: outcome.as_ref().err().cloned(),
        });
        outcome.map_err(|message| HostError { exc_type: "MemoryWriteError".into(), message })
    }
}
