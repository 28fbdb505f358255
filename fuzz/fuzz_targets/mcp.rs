//! Fuzz target `mcp`: any bytes as lines a client sends to `swaplab mcp` — each line read
//! by the JSON reader (`sim::json::parse`, key order kept, depth and size capped) and
//! answered by the simulated MCP server (`McpServer::handle`: `initialize`, `ping`,
//! `tools/list`, `tools/call` with FastMCP's argument coercion and the tool body run in
//! the interpreter against the mock CRM), the answer printed as JSON. A first line
//! `# <example id>` serves that built-in example's server instead of the tutorial's.
#![no_main]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use swaplab_core::sim::Simulation;
use swaplab_core::sim::crm::Crm;
use swaplab_core::sim::json;
use swaplab_core::sim::mcp::indented_json;

/// Lines answered per input.
const LINES: usize = 16;

/// Each built-in example read once, by id.
fn simulations() -> &'static BTreeMap<String, Simulation> {
    static SIMULATIONS: OnceLock<BTreeMap<String, Simulation>> = OnceLock::new();
    SIMULATIONS.get_or_init(|| {
        swaplab_fuzz::examples()
            .iter()
            .map(|(id, workspace)| (id.clone(), Simulation::new(workspace)))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let text = swaplab_fuzz::text(data);
    let mut lines = text.split('\n').peekable();
    let chosen = lines.peek().and_then(|line| line.strip_prefix("# ")).map(str::trim);
    let sims = simulations();
    let sim = chosen.and_then(|id| sims.get(id)).unwrap_or(&sims["tutorial"]);
    let Some(server) = &sim.server else { return };
    let mut crm = Crm::new(sim.seed.clone());
    for line in lines.take(LINES) {
        let Ok(message) = json::parse(line.trim_end_matches('\r')) else { continue };
        let exchange = server.handle(&message, &mut crm);
        if let Some(response) = &exchange.response {
            let _ = json::compact(response);
            let _ = indented_json(response, 0);
        }
        if let Some(call) = &exchange.call {
            for client in &call.client_calls {
                for request in &client.requests {
                    let _ = request.line();
                }
            }
        }
    }
});
