//! Rasa 3.21 project files read the way Rasa reads them: skills, config, memory, imports.

pub mod arguments;
pub mod cache;
pub mod condition;
pub mod findings;
pub mod imports;
pub mod integrations;
pub mod memory;
pub mod project;
pub mod responses;
pub mod skill;
pub mod workspace;
