//! No input makes a reader panic: corpus and tutorial files are truncated, bit-flipped,
//! nested deeply and blown up, and every reader must answer with values and diagnostics.
//! Inputs above the documented caps are refused with a message, not parsed.

use std::path::{Path, PathBuf};

use swaplab_core::python::{scan_mcp_server, scan_tool_module};
use swaplab_core::rasa::integrations::read_integrations;
use swaplab_core::rasa::memory::{read_project_memory, read_skill_memory};
use swaplab_core::rasa::project::read_project;
use swaplab_core::rasa::responses::read_responses;
use swaplab_core::sim::attack::AttackOptions;
use swaplab_core::sim::conversation::{Policy, RunOptions, run_script};
use swaplab_core::sim::trace::trace;
use swaplab_core::sim::{Side, Simulation};
use swaplab_core::{FileRef, Project, Workspace};

use swaplab_core::rasa::skill::{MAX_SKILL_BYTES, compile_skill};

use crate::support::{corpus_dir, corpus_projects, examples_dir, read, walk};

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n.max(1) as u64)).unwrap_or(0)
    }
}

/// Every text file under the corpus and the tutorial example.
fn seeds() -> Vec<(PathBuf, String)> {
    let mut found: Vec<(PathBuf, String)> = [corpus_dir(), examples_dir()]
        .iter()
        .flat_map(|dir| walk(dir))
        .filter(|path| {
            matches!(path.extension().and_then(|e| e.to_str()), Some("md" | "yml" | "yaml" | "py"))
        })
        .map(|path| {
            let text = read(&path);
            (path, text)
        })
        .collect();
    found.sort();
    assert!(found.len() > 50, "seed files missing: {}", found.len());
    found
}

/// Mutations of one text: truncations, byte flips, insertions of YAML-significant bytes.
fn mutations(text: &str, rng: &mut Rng) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for _ in 0..12 {
        out.push(String::from_utf8_lossy(&bytes[..rng.below(bytes.len() + 1)]).into_owned());
    }
    const SPICE: &[u8] = b":-[]{}&*!|>'\"#%@`\n\t ,?\\\x00\xff";
    for _ in 0..24 {
        let mut copy = bytes.to_vec();
        for _ in 0..=rng.below(4) {
            if copy.is_empty() {
                break;
            }
            let at = rng.below(copy.len());
            match rng.below(3) {
                0 => copy[at] ^= 1 << rng.below(8),
                1 => copy.insert(at, SPICE[rng.below(SPICE.len())]),
                _ => {
                    copy.remove(at);
                }
            }
        }
        out.push(String::from_utf8_lossy(&copy).into_owned());
    }
    out
}

fn check_skill(text: &str) {
    let result = compile_skill("skills/x/skill.md", "x", text);
    assert!(result.compiled.is_some() != result.error.is_some());
    if let Some(error) = &result.error {
        assert!(!error.code.is_empty() && !error.message.is_empty());
        assert!(error.span.start.line >= 1 && error.span.start.column >= 1);
    }
}

#[test]
fn mutated_skill_files_give_only_diagnostics() {
    let mut rng = Rng(0x5eed_0001);
    let mut runs = 0;
    for (path, text) in seeds() {
        if path.file_name().and_then(|n| n.to_str()) != Some("skill.md") {
            continue;
        }
        for mutated in mutations(&text, &mut rng) {
            check_skill(&mutated);
            runs += 1;
        }
    }
    assert!(runs > 1000, "{runs}");
}

/// Every reader that could see this file's text.
fn check_any(path: &Path, text: &str) {
    match path.extension().and_then(|e| e.to_str()) {
        Some("md") => check_skill(text),
        Some("py") => {
            let module = scan_tool_module("tools.py", text);
            let server = scan_mcp_server("server.py", text);
            for tool in &server.tools {
                let _ = tool.input_schema.to_python_json();
            }
            assert!(
                module
                    .diagnostics
                    .iter()
                    .chain(&server.diagnostics)
                    .all(|d| d.span.start.line >= 1)
            );
        }
        _ => {
            let _ = read_integrations("integrations.yml", Some(text));
            let _ = read_project_memory("memory.yml", Some(text));
            let _ = read_skill_memory("skills/x/memory.yml", "x", text);
            let _ = read_responses("responses.yml", text);
        }
    }
}

#[test]
fn mutated_config_and_python_files_give_only_diagnostics() {
    let mut rng = Rng(0x5eed_0002);
    let mut runs = 0;
    for (path, text) in seeds() {
        if path.file_name().and_then(|n| n.to_str()) == Some("skill.md") {
            continue;
        }
        for mutated in mutations(&text, &mut rng) {
            check_any(&path, &mutated);
            runs += 1;
        }
    }
    assert!(runs > 1000, "{runs}");
}

#[test]
fn mutated_whole_projects_give_only_diagnostics() {
    let mut rng = Rng(0x5eed_0003);
    for project in corpus_projects() {
        let files: Vec<(String, String)> = walk(&project)
            .into_iter()
            .filter(|path| !path.ends_with("rasa-3.21.0-verdict.json"))
            .map(|path| {
                let relative = path
                    .strip_prefix(&project)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                (relative, read(&path))
            })
            .collect();
        for _ in 0..20 {
            let mutated: Vec<(String, String)> = files
                .iter()
                .map(|(path, text)| {
                    let text = if rng.below(4) == 0 {
                        let mut variants = mutations(text, &mut rng);
                        variants.swap_remove(rng.below(variants.len()))
                    } else {
                        text.clone()
                    };
                    (path.clone(), text)
                })
                .collect();
            let report = read_project(&Project::from_files(mutated));
            assert!(report.diagnostics.iter().all(|d| !d.message.is_empty()));
        }
    }
}

/// Runs everything the simulation offers on one workspace; it must answer, not panic.
fn simulate_everything(workspace: &Workspace) {
    let sim = Simulation::new(workspace);
    let pair = sim.attack(&AttackOptions::default());
    assert!(pair.after.leaks.len() <= pair.after.probes.len() * 2);
    for side in [Side::Before, Side::After] {
        if let Ok(agent) = sim.start(side) {
            for script in &sim.scripts {
                for policy in Policy::ALL {
                    let options = RunOptions { policy, answers: Vec::new() };
                    let transcript = run_script(&agent, &sim.seed, script, &options);
                    trace(&agent, &sim.seed, &transcript);
                }
            }
        }
    }
}

#[test]
fn mutated_workspaces_simulate_without_panicking() {
    let root = examples_dir().join("tutorial");
    let files: Vec<(FileRef, String)> = walk(&root)
        .into_iter()
        .filter_map(|path| {
            let relative = path.strip_prefix(&root).ok()?.to_string_lossy().replace('\\', "/");
            Some((FileRef::parse(&relative)?, read(&path)))
        })
        .collect();
    let mut rng = Rng(0x5eed_0004);
    let mut runs = 0;
    for (target, text) in &files {
        for mutated in mutations(text, &mut rng).into_iter().step_by(3) {
            let mut workspace = Workspace::default();
            for (file, original) in &files {
                let body = if file == target { mutated.clone() } else { original.clone() };
                workspace.set_file(file, body);
            }
            simulate_everything(&workspace);
            runs += 1;
        }
    }
    assert!(runs > 200, "{runs} workspaces simulated");
}

#[test]
fn pathological_skill_files_give_only_diagnostics() {
    let front = "---\ndescription: x\n";
    let cases = [
        String::new(),
        "---".to_owned(),
        "---\n---".to_owned(),
        format!("{front}import_tools: {}\n---\nBody", "[".repeat(10_000)),
        format!("{front}x: {}\n---\nBody", "{a: ".repeat(5_000)),
        format!("{front}---\n{}", ":::ordered_block id=a\n".repeat(2_000)),
        format!(
            "{front}---\n:::ordered_block id=a\nsteps:\n{}:::\n",
            "  - id: s\n    instructions: x\n".repeat(3_000)
        ),
        format!("{front}---\n{}", "@block.".repeat(20_000)),
        format!("{front}---\n{}", "if:\n".repeat(5_000)),
        format!("{front}description: {}\n---\nBody", "x".repeat(500_000)),
        format!(
            "{front}a: &a [x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b]\n---\nBody"
        ),
        "\u{feff}---\r\ndescription: x\r\n---\r\nBody\r\n".to_owned(),
        "---\n\u{2028}description: x\u{85}---\nBody".to_owned(),
    ];
    for case in &cases {
        check_skill(case);
    }
}

#[test]
fn files_above_the_cap_are_refused_with_a_message() {
    let at_cap = format!("---\ndescription: x\n---\n{}", "y".repeat(MAX_SKILL_BYTES - 23));
    assert_eq!(at_cap.len(), MAX_SKILL_BYTES);
    assert!(compile_skill("skill.md", "x", &at_cap).compiled.is_some());
    let over = format!("{at_cap}y");
    let refused = compile_skill("skill.md", "x", &over);
    let error = refused.error.expect("refused");
    assert_eq!(error.code, "swaplab.limits.file_too_large");
    assert!(error.message.contains("1048577 bytes"), "{}", error.message);
}

#[test]
fn project_caps_refuse_at_one_past_the_limit() {
    use swaplab_core::rasa::project::{MAX_FILE_BYTES, MAX_PROJECT_FILES};
    let skill = |len: usize| {
        let head = "---\ndescription: x\n---\n";
        format!("{head}{}", "y".repeat(len - head.len()))
    };
    let at_cap = read_project(&Project::from_files([("skills/a/skill.md", skill(MAX_FILE_BYTES))]));
    assert_eq!(at_cap.loaded_skills().count(), 1);
    let over =
        read_project(&Project::from_files([("skills/a/skill.md", skill(MAX_FILE_BYTES + 1))]));
    let refusal = over
        .diagnostics
        .iter()
        .find(|d| d.code == "swaplab.limits.file_too_large")
        .expect("refused");
    assert!(refusal.message.contains("1048577 bytes"), "{}", refusal.message);
    let many = |count: usize| {
        read_project(&Project::from_files(
            (0..count).map(|n| (format!("notes/{n:05}.md"), String::new())),
        ))
    };
    assert!(
        !many(MAX_PROJECT_FILES)
            .diagnostics
            .iter()
            .any(|d| d.code == "swaplab.limits.too_many_files")
    );
    let over = many(MAX_PROJECT_FILES + 1);
    let skipped: Vec<&str> = over
        .diagnostics
        .iter()
        .filter(|d| d.code == "swaplab.limits.too_many_files")
        .map(|d| d.file.as_str())
        .collect();
    assert_eq!(skipped, ["notes/02000.md"]);
}
