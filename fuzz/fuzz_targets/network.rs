//! Fuzz target `network`: the in-memory network's round trip. The input is two Python
//! files split at the first line `#---`: a mock server (any `http.server` handler class
//! it defines) and a client module whose first few functions run with an `httpx` client
//! at hand. Every request the client sends, to any address, is served by the mock's
//! first handler class in a process of its own that lives as long as the input, so
//! state crosses requests. Whatever the texts, nothing panics, every run ends within
//! the interpreter's limits, and a diagnostic points into the file it names.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use swaplab_core::diagnostic::Span;
use swaplab_core::python::{
    Delivery, Host, HostError, HttpRequest, Library, Outcome, Process, PyValue, compile_linked,
};
use swaplab_fuzz::check_diagnostics;

/// How many functions of the client are run.
const CALLS: usize = 3;

/// The mock, serving whatever the client sends.
struct Wire {
    mock: Process,
    class: Option<String>,
    served: usize,
}

/// A host for the mock's own code: it reaches nothing.
struct Nothing;

impl Host for Nothing {
    fn crm_call(
        &mut self,
        f: &str,
        _: &[PyValue],
        _: &[(String, PyValue)],
        _: Span,
    ) -> Result<PyValue, HostError> {
        Err(HostError::new("AttributeError", f))
    }
    fn memory_get(&mut self, _: &str, default: PyValue, _: Span) -> PyValue {
        default
    }
    fn memory_set(&mut self, _: &str, _: PyValue, _: Span) -> Result<(), HostError> {
        Ok(())
    }
}

impl Host for Wire {
    fn crm_call(
        &mut self,
        f: &str,
        _: &[PyValue],
        _: &[(String, PyValue)],
        _: Span,
    ) -> Result<PyValue, HostError> {
        Err(HostError::new("AttributeError", f))
    }
    fn memory_get(&mut self, _: &str, default: PyValue, _: Span) -> PyValue {
        default
    }
    fn memory_set(&mut self, _: &str, _: PyValue, _: Span) -> Result<(), HostError> {
        Ok(())
    }
    fn http(&mut self, request: &HttpRequest, _: Span) -> Delivery {
        self.served += 1;
        match &self.class {
            Some(class) => {
                let (delivery, _) = self.mock.serve(class, request, &mut Nothing);
                if let Delivery::Answered(response) = &delivery {
                    assert!((100..1000).contains(&response.status), "{response:?}");
                }
                delivery
            }
            None => Delivery::Refused,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (server, client) = text.split_once("\n#---\n").unwrap_or((&text, ""));
    let mock = compile_linked("scripts/mock.py", server, &Library::default());
    check_diagnostics("scripts/mock.py", server, &mock.diagnostics);
    let mock = Process::new(Arc::new(mock));
    let class = mock.handler_classes().first().map(|c| (*c).to_owned());
    let mut wire = Wire { mock, class, served: 0 };
    let program = Arc::new(compile_linked("lib/client.py", client, &Library::default()));
    check_diagnostics("lib/client.py", client, &program.diagnostics);
    let names: Vec<String> =
        program.function_names().into_iter().take(CALLS).map(str::to_owned).collect();
    let mut process = Process::with_environment(
        program,
        vec![("HUBSPOT_BASE_URL".into(), "http://127.0.0.1:8787".into())],
    );
    for name in names {
        if let Outcome::Unsupported(d) = process.call(&name, &[], false, &mut wire) {
            assert!(!d.message.is_empty());
        }
    }
});
