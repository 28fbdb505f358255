//! The companion proof on the tutorial-shaped example: exactly the seed's output, and the
//! blind spots the review exists for.

use swaplab_core::proof::{LABEL_WIDTH, check_line, prove};

use crate::support::{edit, read, read_optional, tutorial_workspace};

fn fixture() -> String {
    read(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/seeds/proof-tutorial.txt"),
    )
}

/// Our built-in example's skill files are not the tutorial repository's: each body is one
/// character longer by the script's rule (`text.split("---\n", 2)[-1]`; CPython 3.11 gives
/// 688, 805 and 1227 for `content/examples/tutorial/after/skills/*/skill.md`). Everything
/// else is the seed's output, character for character.
#[test]
fn the_proof_on_the_tutorial_prints_the_seeds_output_with_its_own_body_lengths() {
    let proof = prove(&tutorial_workspace());
    assert!(proof.passed());
    assert_eq!(proof.count(), 18);
    let expected = fixture()
        .replace("byte-identical 687 bytes", "byte-identical 688 bytes")
        .replace("byte-identical 804 bytes", "byte-identical 805 bytes")
        .replace("byte-identical 1226 bytes", "byte-identical 1227 bytes");
    assert_eq!(proof.to_text(), expected);
}

#[test]
fn the_fixture_is_cut_verbatim_from_the_seed() {
    let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/seeds");
    let Some(seed) = read_optional(&seeds.join("001_a10af8aa5d9c61d4.txt")) else { return };
    assert!(seed.contains(&fixture()), "fixtures/seeds/proof-tutorial.txt drifted from the seed");
}

#[test]
fn labels_are_padded_to_44_columns_and_long_ones_get_one_space() {
    let line = |label: &str| {
        check_line(&swaplab_core::proof::ProofCheck {
            label: label.into(),
            passed: true,
            detail: "d".into(),
        })
    };
    assert_eq!(line("short"), format!("  ✓ short{} d", " ".repeat(LABEL_WIDTH - 5)));
    let long = "x".repeat(LABEL_WIDTH + 3);
    assert_eq!(line(&long), format!("  ✓ {long} d"));
}

#[test]
fn a_confirmation_moved_to_the_read_tool_still_passes_the_proof() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "after/skills/log_interaction/skill.md",
        "  - add_timeline_note:\n",
        "  - list_open_tickets:\n",
    );
    let proof = prove(&workspace);
    assert!(proof.passed(), "{}", proof.to_text());
    assert!(
        proof
            .to_text()
            .contains("  ✓ log_interaction: only import_tools differs   4 changed line(s)\n")
    );
}

#[test]
fn a_dict_return_fails_the_structured_result_checks_in_the_scripts_words() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "server/scripts/mcp_crm_server.py",
        "async def find_contact_by_email(email: str) -> CrmResult:",
        "async def find_contact_by_email(email: str) -> dict:",
    );
    let text = prove(&workspace).to_text();
    assert!(
        text.contains("  ✗ result is structured, not text blocks        structuredContent is None — tool has no outputSchema\n"),
        "{text}"
    );
    assert!(
        text.contains("  ✗ find_contact_by_email over MCP               None at None\n"),
        "{text}"
    );
    assert!(
        text.contains("  ✗ absent contact is not an error               error=None\n"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "\n  3 check(s) failed:\n    - result is structured, not text blocks\n    - find_contact_by_email over MCP\n    - absent contact is not an error\n\n"
        ),
        "{text}"
    );
}

/// The script looks for the text `mcp/hubspot_crm:<tool>` in the skill file, and looks the
/// fixed tool names up in `tools/list`: a renamed import fails group 3 only.
#[test]
fn a_renamed_import_fails_only_the_reference_check() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "after/skills/check_tickets/skill.md",
        "mcp/hubspot_crm:list_open_tickets",
        "mcp/hubspot_crm:list_tickets",
    );
    let proof = prove(&workspace);
    let failed: Vec<&str> = proof.failed().iter().map(|c| c.label.as_str()).collect();
    assert_eq!(failed, ["check_tickets imports list_open_tickets"], "{}", proof.to_text());
    let text = proof.to_text();
    assert!(
        text.contains(
            "  ✗ check_tickets imports list_open_tickets      reference not found in skill.md\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "  ✓ server exposes list_open_tickets             imported by check_tickets\n"
        )
    );
}

#[test]
fn changed_prose_is_quoted_as_a_python_list() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "after/skills/check_tickets/skill.md",
        "nobody is identified yet",
        "no caller is identified yet",
    );
    let text = prove(&workspace).to_text();
    let line = text.lines().find(|l| l.contains("check_tickets: only import_tools")).unwrap();
    assert!(
        line.starts_with("  ✗ check_tickets: only import_tools differs     prose changed: ['"),
        "{line}"
    );
    assert!(line.contains("no caller is identified yet"), "{line}");
    assert!(
        text.contains("  ✗ check_tickets: instruction body byte-identical bodies differ\n"),
        "{text}"
    );
}

#[test]
fn a_missing_skill_file_stops_the_script_with_its_exception() {
    let mut workspace = tutorial_workspace();
    workspace.remove_file(
        &swaplab_core::FileRef::parse("after/skills/identify_customer/skill.md").unwrap(),
    );
    let proof = prove(&workspace);
    assert!(!proof.passed());
    let text = proof.to_text();
    assert!(
        text.ends_with(
            "  ✓ check_tickets: instruction body byte-identical 688 bytes\nTraceback (most recent call last):\n  …\nFileNotFoundError: [Errno 2] No such file or directory: 'after/skills/identify_customer/skill.md'\n"
        ),
        "{text}"
    );
}

#[test]
fn a_server_on_another_port_stops_the_run_after_group_4() {
    let mut workspace = tutorial_workspace();
    edit(&mut workspace, "server/scripts/mcp_crm_server.py", "port=8931", "port=8932");
    let proof = prove(&workspace);
    let text = proof.to_text();
    assert_eq!(proof.groups.len(), 4, "{text}");
    assert!(
        text.ends_with("  ✓ no skill imports an unconfigured server      ['hubspot_crm'] ⊆ ['hubspot_crm']\n  scripts/mcp_crm_server.py did not come up on 8931\n"),
        "{text}"
    );
    assert!(!proof.passed());
}

#[test]
fn a_second_server_fails_the_parse_check_with_both_names() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "after/integrations.yml",
        "mcp_servers:\n",
        "mcp_servers:\n  - name: billing\n    url: http://127.0.0.1:9000/mcp\n",
    );
    let text = prove(&workspace).to_text();
    assert!(
        text.contains(
            "  ✗ parse_mcp_servers accepts the file           servers: ['billing', 'hubspot_crm']\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "  ✓ server url is loopback http                  http://127.0.0.1:8931/mcp\n"
        ),
        "{text}"
    );
}

#[test]
fn a_renamed_server_fails_groups_2_and_4_in_the_scripts_words() {
    let mut workspace = tutorial_workspace();
    edit(&mut workspace, "after/integrations.yml", "name: hubspot_crm", "name: crm");
    let text = prove(&workspace).to_text();
    assert!(
        text.contains(
            "  ✗ server url is loopback http                  no server named 'hubspot_crm'\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("  ✗ no skill imports an unconfigured server      missing from integrations.yml: ['hubspot_crm']\n"),
        "{text}"
    );
}

#[test]
fn crlf_files_are_read_with_universal_newlines() {
    let mut workspace = tutorial_workspace();
    for side in ["before", "after"] {
        let file =
            swaplab_core::FileRef::parse(&format!("{side}/skills/check_tickets/skill.md")).unwrap();
        let text = workspace.file(&file).unwrap().replace('\n', "\r\n");
        workspace.set_file(&file, text);
    }
    let text = prove(&workspace).to_text();
    assert!(
        text.contains("  ✓ check_tickets: instruction body byte-identical 688 bytes\n"),
        "{text}"
    );
}

/// A lookup whose body Swap Lab cannot run is not a failed lookup: the proof says it
/// could not run, with the interpreter's reason, and never prints `None at None`.
#[test]
fn a_lookup_outside_the_subset_stops_the_proof_as_could_not_run() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "server/scripts/mcp_crm_server.py",
        "async def find_contact_by_email(email: str) -> CrmResult:\n",
        "async def find_contact_by_email(email: str) -> CrmResult:\n    match email:\n        case _:\n            pass\n",
    );
    let proof = prove(&workspace);
    assert!(proof.could_not_run(), "{}", proof.to_text());
    assert!(!proof.passed());
    let text = proof.to_text();
    assert!(!text.contains("None at None"), "{text}");
    assert!(
        text.contains("  Swap Lab could not run the rest of the proof: find_contact_by_email: "),
        "{text}"
    );
    assert!(
        text.contains("\n  6. a tool call over MCP returns the CRM fact\n  Swap Lab could not run"),
        "{text}"
    );
}

/// A real project's server imports its own client module, which Swap Lab does not run
/// yet: `tools/list` still comes from the file, and the lookup could not run.
#[test]
fn a_server_on_its_own_client_module_lists_its_tools_and_could_not_run_the_lookup() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "server/scripts/mcp_crm_server.py",
        "from lib import hubspot  # noqa: E402",
        "from acme_crm_sdk import hubspot  # noqa: E402",
    );
    let proof = prove(&workspace);
    let text = proof.to_text();
    assert_eq!(proof.groups.len(), 6, "{text}");
    assert!(
        text.contains(
            "  ✓ server exposes find_contact_by_email         imported by identify_customer\n"
        ),
        "{text}"
    );
    assert!(proof.could_not_run(), "{text}");
    assert!(proof.failed().is_empty(), "{text}");
}
