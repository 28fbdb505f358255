//! A reader's progress through the exercises, as kept in the browser under
//! [`PROGRESS_KEY`]: which exercises are done and how many hints each one showed.
//!
//! The text format is versioned by its first line so a later format can read this one.
//! Decoding never fails: lines it does not understand are skipped, so a damaged or
//! newer entry loses at most those lines, never the rest.

use std::collections::BTreeMap;

/// The `localStorage` key.
pub const PROGRESS_KEY: &str = "swaplab.progress.v1";

/// The `localStorage` key of the participant's name, for receipts.
pub const PARTICIPANT_KEY: &str = "swaplab.participant.v1";

/// The key of a reader's work on one exercise (a draft in `Session`'s format).
pub fn exercise_draft_key(id: &str) -> String {
    format!("swaplab.exercise.v1.{id}")
}

const HEADER: &str = "swaplab-progress 1";

/// Where one exercise stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExerciseProgress {
    /// The goal has been met at least once.
    pub done: bool,
    /// Hints revealed so far.
    pub hints_shown: u32,
    /// The solution has been revealed.
    pub solution_shown: bool,
}

/// Every exercise's progress, by exercise id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// By exercise id (`NN-slug`).
    pub exercises: BTreeMap<String, ExerciseProgress>,
}

impl Progress {
    /// The ids of the exercises that are done, in order.
    pub fn done(&self) -> Vec<&str> {
        self.exercises.iter().filter(|(_, p)| p.done).map(|(id, _)| id.as_str()).collect()
    }

    /// The progress of one exercise (default when never started).
    pub fn of(&self, id: &str) -> ExerciseProgress {
        self.exercises.get(id).cloned().unwrap_or_default()
    }

    /// Changes one exercise's progress.
    pub fn update(&mut self, id: &str, change: impl FnOnce(&mut ExerciseProgress)) {
        change(self.exercises.entry(id.to_owned()).or_default());
    }

    /// The stored text.
    pub fn encode(&self) -> String {
        let mut out = format!("{HEADER}\n");
        for (id, p) in &self.exercises {
            out.push_str(&format!(
                "{id} {} {} {}\n",
                if p.done { "done" } else { "open" },
                p.hints_shown,
                if p.solution_shown { "solution" } else { "-" }
            ));
        }
        out
    }

    /// Reads stored text; anything unreadable is left out.
    pub fn decode(text: &str) -> Progress {
        let mut progress = Progress::default();
        let mut lines = text.lines();
        if lines.next().map(str::trim) != Some(HEADER) {
            return progress;
        }
        for line in lines {
            let parts: Vec<&str> = line.split_whitespace().collect();
            let [id, state, hints, solution] = parts[..] else { continue };
            let valid_id = !id.is_empty()
                && id.len() <= 80
                && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            let (Some(done), Ok(hints_shown)) = (
                match state {
                    "done" => Some(true),
                    "open" => Some(false),
                    _ => None,
                },
                hints.parse::<u32>(),
            ) else {
                continue;
            };
            if valid_id {
                progress.exercises.insert(
                    id.to_owned(),
                    ExerciseProgress { done, hints_shown, solution_shown: solution == "solution" },
                );
            }
        }
        progress
    }
}
