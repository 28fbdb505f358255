//! What the fuzz targets share: turning bytes into text and into a whole workspace, the
//! built-in examples (the permalink decoder's bases, the pipeline's starting point), and
//! the list of every report the command line and the playground produce from a workspace.
//!
//! The workspace scheme (`workspace_from_bytes`) is what the `pipeline` target feeds and
//! what `examples/make_seeds.rs` writes:
//!
//! - bytes that start with `@@@ ` are files: each `@@@ <area>/<path>` line starts one, and
//!   the bytes up to the next `\n@@@ ` are its text (headers that are not a `FileRef` are
//!   skipped);
//! - any other bytes are the tutorial example with one file replaced: the first byte picks
//!   the file (its index in file-tree order, modulo the count) and the rest is the text.
//!
//! Invalid UTF-8 is replaced (`U+FFFD`), the way a reader's file would be after decoding.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use swaplab_core::diff::{ChangeStatus, diff_text, project_changes, side_by_side};
use swaplab_core::memo::Memo;
use swaplab_core::proof::prove_with;
use swaplab_core::review::review_with;
use swaplab_core::semantic::semantic_changes;
use swaplab_core::sim::attack::AttackOptions;
use swaplab_core::sim::conversation::{Policy, RunOptions, run_script};
use swaplab_core::sim::trace::trace;
use swaplab_core::sim::{AttackPair, Side, Simulation};
use swaplab_core::{FileRef, Workspace};

/// The header that starts a file in the files form of the workspace scheme.
pub const FILE_HEADER: &str = "@@@ ";

/// The bytes as text, invalid UTF-8 replaced.
pub fn text(data: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Every built-in example's pristine workspace, by id (loaded once per process).
pub fn examples() -> &'static BTreeMap<String, Workspace> {
    static EXAMPLES: OnceLock<BTreeMap<String, Workspace>> = OnceLock::new();
    EXAMPLES.get_or_init(|| {
        let infos = swaplab_content::examples().expect("the embedded examples load");
        infos
            .into_iter()
            .filter_map(|info| {
                let example = swaplab_content::example(info.id).ok()??;
                Some((info.id.to_owned(), example.workspace))
            })
            .collect()
    })
}

/// The built-in example a permalink's example form names.
pub fn example(id: &str) -> Option<Workspace> {
    examples().get(id).cloned()
}

/// The tutorial example, the pipeline's starting point.
pub fn tutorial() -> &'static Workspace {
    examples().get("tutorial").expect("the tutorial example exists")
}

/// The tutorial's files in file-tree order: what the first byte of the replace form picks.
pub fn tutorial_files() -> Vec<FileRef> {
    tutorial().files().map(|(file, _)| file).collect()
}

/// Bytes → a workspace, by the scheme in the crate docs.
pub fn workspace_from_bytes(data: &[u8]) -> Workspace {
    let text = text(data);
    match text.strip_prefix(FILE_HEADER) {
        Some(files) => {
            let mut workspace = Workspace::default();
            for chunk in files.split(&format!("\n{FILE_HEADER}")) {
                let (header, body) = chunk.split_once('\n').unwrap_or((chunk, ""));
                if let Some(file) = FileRef::parse(header.trim_end_matches('\r')) {
                    workspace.set_file(&file, body);
                }
            }
            workspace
        }
        None => {
            let mut workspace = tutorial().clone();
            if let Some((&pick, rest)) = data.split_first() {
                let files = tutorial_files();
                let file = &files[usize::from(pick) % files.len()];
                workspace.set_file(file, self::text(rest));
            }
            workspace
        }
    }
}

/// A workspace in the files form of the scheme (`workspace_from_bytes` reads it back;
/// a file's text never gains or loses a byte).
pub fn files_form(workspace: &Workspace) -> Vec<u8> {
    let mut out = String::new();
    for (index, (file, body)) in workspace.files().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        out.push_str(FILE_HEADER);
        out.push_str(&file.to_string());
        out.push('\n');
        out.push_str(body);
    }
    out.into_bytes()
}

/// The replace form: the tutorial with `file` replaced by `body`.
pub fn replace_form(file: &FileRef, body: &str) -> Option<Vec<u8>> {
    let index = tutorial_files().iter().position(|f| f == file)?;
    let mut out = vec![u8::try_from(index).ok()?];
    out.extend_from_slice(body.as_bytes());
    Some(out)
}

/// Everything the command line and the playground compute from one workspace: the
/// parse report, the proof, the review (with its attack), the attack, the semantic
/// changes, the file diffs, `tools/list`, and every conversation script under every
/// policy on both sides with its id trace. Text and JSON renderings included, since the
/// shells print them. Returns how many conversations ran.
pub fn every_report(workspace: &Workspace) -> usize {
    let sim = Simulation::new(workspace);
    let _ = serde_json::to_string(&sim.report);
    for (project, diagnostics) in [
        (&workspace.before, &sim.report.before.diagnostics),
        (&workspace.after, &sim.report.after.diagnostics),
        (&workspace.crm, &sim.seed.diagnostics),
    ] {
        for (path, text) in project.files() {
            check_diagnostics(path, text, diagnostics);
        }
    }
    for script in &sim.scripts {
        if let Some(text) = workspace.crm.file(&script.file) {
            check_diagnostics(&script.file, text, &script.diagnostics);
        }
    }
    if let Some(server) = &sim.report.server {
        for (path, text) in workspace.server.files() {
            check_diagnostics(path, text, &server.diagnostics);
        }
    }
    let proof = prove_with(workspace, &sim);
    let _ = proof.to_text();
    let _ = serde_json::to_string(&proof);
    let review = review_with(&sim, &AttackOptions::default());
    let _ = review.to_text();
    let _ = serde_json::to_string(&review);
    let attack = sim.attack(&AttackOptions::default());
    let _ = serde_json::to_string(&attack);
    check_memo(workspace, &sim, &attack);
    for change in semantic_changes(&sim.report) {
        for place in change.before.iter().chain(&change.after) {
            let _ = place.location();
        }
        let _ = serde_json::to_string(&change);
    }
    for change in project_changes(&workspace.before, &workspace.after) {
        if change.status == ChangeStatus::Modified {
            let old = workspace.before.file(&change.path).unwrap_or_default();
            let new = workspace.after.file(&change.path).unwrap_or_default();
            let diff = diff_text(old, new, 3);
            let _ = diff.unified(&change.path, &change.path);
            let _ = side_by_side(&diff);
        }
    }
    if let Some(server) = &sim.server {
        let _ = server.tools_list();
    }
    let mut runs = 0;
    for side in [Side::Before, Side::After] {
        let Ok(agent) = sim.start(side) else { continue };
        for script in &sim.scripts {
            for policy in Policy::ALL {
                let options = RunOptions { policy, answers: Vec::new() };
                let transcript = run_script(&agent, &sim.seed, script, &options);
                let _ = serde_json::to_string(&transcript);
                let traces = trace(&agent, &sim.seed, &transcript);
                let _ = serde_json::to_string(&traces);
                runs += 1;
            }
        }
    }
    runs
}

/// The memo's contract (`swaplab_core::memo`): a memo that saw the tutorial first, as the
/// playground's has when a reader edits it, changes nothing in the reading or the attack
/// — including the attack's probes it takes from the tutorial's for unchanged skills.
fn check_memo(workspace: &Workspace, fresh: &Simulation, attack: &AttackPair) {
    let mut memo = Memo::new();
    let _ = Simulation::with_memo(tutorial(), &mut memo).attack(&AttackOptions::default());
    let with = Simulation::with_memo(workspace, &mut memo);
    assert_eq!(with.report, fresh.report, "the memo changed the reading");
    assert_eq!(&with.attack(&AttackOptions::default()), attack, "the memo changed the attack");
}

/// The highlighter's contract (`highlight::highlight`): ranges sorted, never overlapping,
/// never empty, inside the text and on char boundaries.
pub fn check_tokens(text: &str, tokens: &[swaplab_core::highlight::Token]) {
    let mut previous_end = 0;
    for token in tokens {
        assert!(token.start < token.end, "an empty or reversed token {token:?}");
        assert!(token.start >= previous_end, "tokens overlap or are unsorted at {token:?}");
        assert!(token.end <= text.len(), "a token past the end: {token:?}");
        assert!(
            text.is_char_boundary(token.start) && text.is_char_boundary(token.end),
            "a token off a char boundary: {token:?}"
        );
        previous_end = token.end;
    }
}

/// A diagnostic about `file` must say something and point into `text` as the editor sees
/// it (lines end at `\n`, columns count characters, both from 1; one past a line's end
/// is allowed), with its end not before its start.
///
/// Whatever the text's line breaks: a `skill.md` is split as Python's `str.splitlines`
/// splits it, and every position it reports is mapped back to the file; the YAML reader,
/// which ends a line at a lone `\r` as YAML does, counts from saphyr's char index when the
/// text has one (until 2026-12-01 this check skipped such texts).
pub fn check_diagnostics(
    file: &str,
    text: &str,
    diagnostics: &[swaplab_core::diagnostic::Diagnostic],
) {
    let lines: Vec<&str> = text.split('\n').collect();
    let inside = |position: swaplab_core::diagnostic::Position| {
        let line = position.line as usize;
        line >= 1
            && position.column >= 1
            && lines
                .get(line - 1)
                .is_some_and(|l| position.column as usize <= l.chars().count() + 1)
    };
    for d in diagnostics.iter().filter(|d| d.file == file) {
        assert!(
            !d.message.is_empty() && !d.code.is_empty(),
            "a diagnostic that says nothing: {d:?}"
        );
        assert!(inside(d.span.start), "a diagnostic starting outside the text: {d:?}");
        assert!(inside(d.span.end), "a diagnostic ending outside the text: {d:?}");
        let (start, end) = (d.span.start, d.span.end);
        assert!((start.line, start.column) <= (end.line, end.column), "a reversed span: {d:?}");
    }
}
