//! Integration tests for swaplab-core, through its public API only.
//!
//! One module per core module, each with a `check` helper so that a new case is data.

mod archive;
mod caps;
mod corpus_config;
mod corpus_skills;
mod crossing;
mod diagnostic;
mod diff;
mod difflib;
mod fuzz_regressions;
mod highlight;
mod hostile;
mod hostile_corpus;
mod markdown;
mod memo;
mod order;
mod permalink;
mod proof;
mod python;
mod python_cpython;
mod python_interp;
mod python_link;
mod python_net;
mod pyyaml;
mod rasa_config;
mod rasa_project;
mod rasa_skill;
mod realistic;
mod review;
mod robustness;
mod semantic;
mod session;
mod sim;
mod sim_network;
mod support;
mod workspace;
mod yaml;
