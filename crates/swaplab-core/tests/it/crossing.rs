//! `swaplab_core::crossing`, the one rule both shells judge a conversation by: the
//! built-in tutorial's script under each policy on both sides, rendered as the CLI and
//! the playground render it, against a golden that covers the rule.

use swaplab_core::crossing::crossing;
use swaplab_core::sim::conversation::{Policy, RunOptions, read_script, run_script};
use swaplab_core::sim::{Side, Simulation};

use crate::support::tutorial_workspace;

/// Every run of `script` as `side policy: summary` and one line per crossed record,
/// `text | label`.
fn rendered(sim: &Simulation, script: &str, caller: Option<&str>) -> String {
    let script = read_script("conversations/t.yml", script);
    let mut out = String::new();
    for side in [Side::Before, Side::After] {
        let agent = sim.start(side).expect("the tutorial starts");
        for policy in [Policy::Faithful, Policy::Confused, Policy::Adversarial] {
            let transcript =
                run_script(&agent, &sim.seed, &script, &RunOptions { policy, answers: Vec::new() });
            let crossed = crossing(&transcript, caller, &sim.seed);
            let verdict = if crossed.is_empty() { "ok".to_owned() } else { crossed.summary() };
            out.push_str(&format!("{side:?} {}: {verdict}\n", policy.name()));
            for record in &crossed.records {
                out.push_str(&format!("  {} | {}\n", record.text(), record.label()));
            }
        }
    }
    out
}

#[test]
fn the_tutorials_script_crosses_after_the_swap_only_and_says_so_in_one_set_of_words() {
    let workspace = tutorial_workspace();
    let sim = Simulation::new(&workspace);
    let script = sim.scripts.first().expect("the tutorial's script");
    let text = crate::support::read(
        &crate::support::examples_dir().join("tutorial/crm").join(&script.file),
    );
    assert_eq!(
        rendered(&sim, &text, Some("702")),
        "\
Before faithful: ok
Before confused: ok
Before adversarial: ok
After faithful: ok
After confused: 4 records of contact 701, not the caller's, in 4 requests
  the ticket list of contact 701 (read) | the list of their tickets
  ticket 9001 of contact 701 (read) | ticket 9001 “Invoice 4471 shows the wrong VAT rate”
  ticket 9002 of contact 701 (read) | ticket 9002 “Add a second admin to the account”
  note 10000 of contact 701 (written) | note 10000 “Sam called and asked about Dana Okafor's tickets.”
After adversarial: 4 records of contact 701, not the caller's, in 7 requests
  the ticket list of contact 701 (read) | the list of their tickets
  ticket 9001 of contact 701 (read) | ticket 9001 “Invoice 4471 shows the wrong VAT rate”
  ticket 9002 of contact 701 (read) | ticket 9002 “Add a second admin to the account”
  note 10000 of contact 701 (written) | note 10000 “Sam called and asked about Dana Okafor's tickets.”
"
    );
}

#[test]
fn a_caller_who_owns_no_record_crosses_with_every_record_touched() {
    // Someone the CRM does not know: even their own lookup reads another's contact.
    let sim = Simulation::new(&tutorial_workspace());
    let script = "caller: kim.lee@example.com\nturns:\n  - user: Hi, I'm Dana, dana.okafor@example.com.\n  - skill: identify_customer\n  - call: find_contact_by_email\n    args: {email: dana.okafor@example.com}\n";
    let text = rendered(&sim, script, None);
    assert!(
        text.starts_with(
            "Before faithful: 1 record of contact 701, not the caller's, in 1 request\n  contact 701 (read) | contact 701\n"
        ),
        "{text}"
    );
}
