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

#[test]
fn the_proof_on_the_tutorial_prints_exactly_the_seeds_output() {
    let proof = prove(&tutorial_workspace());
    assert!(proof.passed());
    assert_eq!(proof.count(), 18);
    assert_eq!(proof.to_text(), fixture());
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
fn a_dict_return_fails_the_structured_result_checks() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "server/scripts/mcp_crm_server.py",
        "async def find_contact_by_email(email: str) -> CrmResult:",
        "async def find_contact_by_email(email: str) -> dict:",
    );
    let text = prove(&workspace).to_text();
    assert!(
        text.contains("  ✗ result is structured, not text blocks        no outputSchema"),
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
    assert!(text.ends_with("  3 of 18 checks failed:\n    ✗ result is structured, not text blocks\n    ✗ find_contact_by_email over MCP\n    ✗ absent contact is not an error\n"), "{text}");
}

#[test]
fn a_renamed_import_fails_the_server_exposes_check() {
    let mut workspace = tutorial_workspace();
    edit(
        &mut workspace,
        "after/skills/check_tickets/skill.md",
        "mcp/hubspot_crm:list_open_tickets",
        "mcp/hubspot_crm:list_tickets",
    );
    let proof = prove(&workspace);
    let failed: Vec<&str> = proof.failed().iter().map(|c| c.label.as_str()).collect();
    assert_eq!(failed, ["server exposes list_tickets"]);
    assert!(
        proof.to_text().contains(
            "  ✗ server exposes list_tickets                  imported by check_tickets\n"
        )
    );
}
