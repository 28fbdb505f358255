//! Fuzz target `yaml_config`: any bytes as a YAML file, through the YAML reader
//! (`yaml::parse`, PyYAML's `safe_load` with positions) and every reader of a YAML file
//! the workspace holds: `integrations.yml` (`read_integrations`), the project's and a
//! skill's `memory.yml` (`read_project_memory`, `read_skill_memory`), `responses.yml`
//! (`read_responses`), the CRM seed `crm.yml` (`sim::crm::read_seed`) and a conversation
//! script (`sim::conversation::read_script`), plus the editor's YAML highlighter.
//! (`agent.yml` and `endpoints.yml` are read by none of them but `yaml::parse`.)
//! Each must answer with values and diagnostics that point into the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use swaplab_core::diagnostic::Position;
use swaplab_core::highlight::{Language, highlight};
use swaplab_core::rasa::integrations::read_integrations;
use swaplab_core::rasa::memory::{read_project_memory, read_skill_memory};
use swaplab_core::rasa::responses::read_responses;
use swaplab_core::sim::conversation::read_script;
use swaplab_core::sim::crm::read_seed;
use swaplab_core::yaml;
use swaplab_fuzz::{check_diagnostics, check_tokens};

fuzz_target!(|data: &[u8]| {
    let text = swaplab_fuzz::text(data);
    let _ = yaml::parse(&text, Position::START);
    let integrations = read_integrations("integrations.yml", Some(&text));
    check_diagnostics("integrations.yml", &text, &integrations.diagnostics);
    let memory = read_project_memory("memory.yml", Some(&text));
    check_diagnostics("memory.yml", &text, &memory.diagnostics);
    let skill_memory = read_skill_memory("skills/fuzzed/memory.yml", "fuzzed", &text);
    check_diagnostics("skills/fuzzed/memory.yml", &text, &skill_memory.diagnostics);
    let responses = read_responses("responses.yml", &text);
    check_diagnostics("responses.yml", &text, &responses.diagnostics);
    let seed = read_seed("crm.yml", &text);
    check_diagnostics("crm.yml", &text, &seed.diagnostics);
    let script = read_script("conversations/fuzzed.yml", &text);
    check_diagnostics("conversations/fuzzed.yml", &text, &script.diagnostics);
    check_tokens(&text, &highlight(Language::Yaml, &text));
});
