//! Fuzz target `pipeline`: any bytes as a whole workspace (the scheme in
//! `swaplab_fuzz::workspace_from_bytes`: `@@@ area/path` headers, or the tutorial with
//! one file replaced), then every report the command line and the playground produce
//! from it (`swaplab_fuzz::every_report`): parse, proof, review, attack, semantic
//! changes, diffs, `tools/list`, and each conversation script under every policy on both
//! sides with its id trace; and, with a memo that saw the tutorial first, the same
//! reading and attack (`check_memo`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let workspace = swaplab_fuzz::workspace_from_bytes(data);
    swaplab_fuzz::every_report(&workspace);
});
