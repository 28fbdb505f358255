//! Fuzz target `python`: any bytes as a Python file, through the lexer (`tokenize`), the
//! Rasa tool-module scanner (`scan_tool_module`: parameters, memory paths, CRM calls,
//! result keys), the FastMCP server scanner (`scan_mcp_server`: tools, pydantic models,
//! literals, and the `inputSchema`/`outputSchema` it would publish, printed), the
//! interpreter's compile step (`compile_module`) and a bounded run of the first few
//! functions it compiled, against a host that answers every CRM call and memory access,
//! plus the editor's Python highlighter. Diagnostics must point into the text, and
//! the highlighter's ranges must keep their contract.
#![no_main]

use libfuzzer_sys::fuzz_target;
use swaplab_core::diagnostic::Span;
use swaplab_core::highlight::{Language, highlight};
use swaplab_core::python::{
    Host, HostError, PyValue, compile_module, scan_mcp_server, scan_tool_module, tokenize,
};
use swaplab_fuzz::{check_diagnostics, check_tokens};

/// How many functions of one input are run (each run is bounded by the interpreter's
/// step limit; this bounds the input's total).
const CALLS: usize = 4;

/// A CRM and a memory that answer everything: a dict for a call (an error for `fail*`),
/// the default for a read, and success for a write.
struct Answering;

impl Host for Answering {
    fn crm_call(
        &mut self,
        function: &str,
        args: &[PyValue],
        _kwargs: &[(String, PyValue)],
        _span: Span,
    ) -> Result<PyValue, HostError> {
        if function.starts_with("fail") {
            return Err(HostError::new("RuntimeError", "CRM unavailable"));
        }
        Ok(PyValue::Dict(vec![
            (PyValue::Str("id".into()), PyValue::Str("1001".into())),
            (PyValue::Str("args".into()), PyValue::List(args.to_vec())),
        ]))
    }

    fn memory_get(&mut self, _path: &str, default: PyValue, _span: Span) -> PyValue {
        default
    }

    fn memory_set(&mut self, path: &str, _value: PyValue, _span: Span) -> Result<(), HostError> {
        if path.is_empty() {
            return Err(HostError::new("MemoryWriteError", "empty path"));
        }
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let text = swaplab_fuzz::text(data);
    let tokens = tokenize("tools.py", &text);
    check_diagnostics("tools.py", &text, &tokens.diagnostics);
    let module = scan_tool_module("skills/fuzzed/tools.py", &text);
    check_diagnostics("skills/fuzzed/tools.py", &text, &module.diagnostics);
    for tool in &module.tools {
        let _ = tool.schema.to_python_json();
    }
    let server = scan_mcp_server("server.py", &text);
    check_diagnostics("server.py", &text, &server.diagnostics);
    for tool in &server.tools {
        let _ = tool.input_schema.to_python_json();
        let _ = tool.input_schema.to_json();
        if let Some(output) = &tool.output_schema {
            let _ = output.to_python_json();
        }
    }
    let program = compile_module("tools.py", &text);
    check_diagnostics("tools.py", &text, &program.diagnostics);
    let params = |name: &str| -> Vec<(String, PyValue)> {
        let rasa = module.tools.iter().find(|t| t.name == name).map(|t| &t.params);
        let mcp = server.tools.iter().find(|t| t.function == name).map(|t| &t.params);
        rasa.or(mcp)
            .into_iter()
            .flatten()
            .filter(|p| p.name != "context" && p.name != "ctx")
            .map(|p| (p.name.clone(), PyValue::Str("1001".into())))
            .collect()
    };
    for name in program.function_names().into_iter().take(CALLS) {
        let _ = program.call(name, &params(name), true, &mut Answering);
    }
    check_tokens(&text, &highlight(Language::Python, &text));
});
