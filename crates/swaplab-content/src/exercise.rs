//! Exercises: `content/exercises/NN-slug/exercise.yml` read into an [`Exercise`] (its
//! start and solution workspaces), and the goal checked on whatever the reader has made
//! of the start ([`Evaluation::of`]).
//!
//! The format is documented in `content/README.md` ("Exercises"). The content tests
//! check that every start fails its goal and every solution passes it; the exercise
//! page runs the same [`Evaluation`] on every edit.

use swaplab_core::analysis::Analysis;
use swaplab_core::diagnostic::Position;
use swaplab_core::proof::Proof;
use swaplab_core::review::{Review, Verdict};
use swaplab_core::sim::agent::Target;
use swaplab_core::sim::{Side, Simulation};
use swaplab_core::words::count;
use swaplab_core::yaml::{Node, YamlValue};
use swaplab_core::{FileRef, Workspace};

use crate::edit::{Edit, parse_edit};
use crate::{ContentError, Outcome};

/// How the reader answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Point at the line that causes the problem.
    FindIt,
    /// Change the files until the goal holds.
    FixIt,
}

impl Style {
    /// `find-it` or `fix-it`, as written in `exercise.yml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Style::FindIt => "find-it",
            Style::FixIt => "fix-it",
        }
    }
}

/// One condition of an exercise's goal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoalCheck {
    /// The review passes (`pass`) or fails.
    Review(Outcome),
    /// No failing review check has an id starting with this.
    Passes(String),
    /// The companion proof passes (`pass`) or fails.
    Proof(Outcome),
    /// At most this many leaks after the swap.
    Leaks(usize),
    /// Whether the after project's agent starts.
    Starts(bool),
    /// After the swap, every skill that can call this tool asks before it runs.
    Confirms(String),
    /// The server tool requires exactly these arguments.
    Requires {
        /// The tool's published name.
        tool: String,
        /// The required arguments, in any order.
        arguments: Vec<String>,
    },
    /// The file is exactly as it was at the start.
    Unchanged(FileRef),
}

impl GoalCheck {
    /// The condition in words, for the page's checklist.
    pub fn label(&self) -> String {
        match self {
            GoalCheck::Review(Outcome::Pass) => "The review passes".into(),
            GoalCheck::Review(Outcome::Fail) => "The review fails".into(),
            GoalCheck::Review(Outcome::Incomplete) => {
                "Nothing fails in the review, but not everything is tested".into()
            }
            GoalCheck::Passes(prefix) => format!("No review check `{prefix}…` fails"),
            GoalCheck::Proof(Outcome::Pass) => "The companion proof passes".into(),
            GoalCheck::Proof(Outcome::Fail | Outcome::Incomplete) => {
                "The companion proof fails".into()
            }
            GoalCheck::Leaks(0) => "The attack runs after the swap and finds no leak".into(),
            GoalCheck::Leaks(n) => {
                format!(
                    "The attack runs after the swap and finds at most {}",
                    count(*n, "leak", "leaks")
                )
            }
            GoalCheck::Starts(true) => "The agent after the swap starts".into(),
            GoalCheck::Starts(false) => "The agent after the swap refuses to start".into(),
            GoalCheck::Confirms(tool) => format!("`{tool}` still asks the caller before it runs"),
            GoalCheck::Requires { tool, arguments } if arguments.is_empty() => {
                format!("The server's `{tool}` requires no argument")
            }
            GoalCheck::Requires { tool, arguments } => {
                format!("The server's `{tool}` requires exactly {}", backticked(arguments))
            }
            GoalCheck::Unchanged(file) => format!("`{file}` is left as it was"),
        }
    }
}

fn backticked(items: &[String]) -> String {
    items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>().join(", ")
}

/// The line a find-it exercise asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Find {
    /// The file it is in.
    pub file: FileRef,
    /// Text the right line contains; any line containing one of them is accepted.
    pub lines: Vec<String>,
}

impl Find {
    /// The 1-based lines of `workspace`'s file that hold one of the texts.
    pub fn accepted_lines(&self, workspace: &Workspace) -> Vec<u32> {
        let Some(text) = workspace.file(&self.file) else { return Vec::new() };
        text.lines()
            .zip(1u32..)
            .filter(|(line, _)| self.lines.iter().any(|want| line.contains(want.as_str())))
            .map(|(_, number)| number)
            .collect()
    }
}

/// What `exercise.yml` says about an exercise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExerciseInfo {
    /// The folder name, `NN-slug`: the URL is `/exercises/<id>`.
    pub id: &'static str,
    /// `NN`: the order and the short link `/x/NN`.
    pub number: u32,
    /// A short title.
    pub title: String,
    /// Find-it or fix-it.
    pub style: Style,
    /// Suggested minutes in a workshop.
    pub minutes: u32,
    /// The example the reader starts from.
    pub start: String,
    /// Edits applied to the start example first.
    pub edits: Vec<Edit>,
    /// The situation, in markdown.
    pub brief: String,
    /// The goal, one sentence.
    pub goal: String,
    /// The conditions that make the goal.
    pub checks: Vec<GoalCheck>,
    /// Find-it: the line to point at.
    pub find: Option<Find>,
    /// Hints, shown one at a time before the solution.
    pub hints: Vec<String>,
    /// Fix-it: edits from the start to a passing state.
    pub solution: Vec<Edit>,
    /// Shown once the goal is met, in markdown.
    pub explanation: String,
}

/// An exercise with its workspaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exercise {
    /// What `exercise.yml` says.
    pub info: ExerciseInfo,
    /// Where the reader starts.
    pub start: Workspace,
    /// The start with the solution applied (the start itself for find-it).
    pub solution: Workspace,
}

/// One condition, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckResult {
    /// The condition in words.
    pub label: String,
    /// Whether it holds.
    pub met: bool,
    /// What was observed, when it does not hold.
    pub detail: Option<String>,
}

/// The goal checked on a workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// Every condition, in the order `exercise.yml` lists them (the pointed line first
    /// for a find-it exercise).
    pub results: Vec<CheckResult>,
}

impl Evaluation {
    /// Whether every condition holds.
    pub fn done(&self) -> bool {
        self.results.iter().all(|r| r.met)
    }

    /// Checks the goal of `exercise` on `workspace`, whose simulation, proof and review
    /// the caller already has; `pointed` is the line a find-it reader points at.
    pub fn of(
        exercise: &Exercise,
        workspace: &Workspace,
        sim: &Simulation,
        proof: &Proof,
        review: &Review,
        pointed: Option<&(FileRef, u32)>,
    ) -> Evaluation {
        let mut results = Vec::new();
        if let Some(find) = &exercise.info.find {
            let accepted = find.accepted_lines(workspace);
            let met =
                pointed.is_some_and(|(file, line)| *file == find.file && accepted.contains(line));
            let detail = match pointed {
                None => Some("Put the cursor on a line and press “This line”.".to_owned()),
                Some((file, line)) if !met => {
                    Some(format!("{file}:{line} is not it — look again."))
                }
                Some(_) => None,
            };
            results.push(CheckResult { label: "Point at the line".to_owned(), met, detail });
        }
        for check in &exercise.info.checks {
            let (met, detail) = observe(check, exercise, workspace, sim, proof, review);
            results.push(CheckResult {
                label: check.label(),
                met,
                detail: (!met).then_some(detail),
            });
        }
        Evaluation { results }
    }

    /// [`Evaluation::of`], computing the simulation, the proof and the review itself.
    pub fn compute(
        exercise: &Exercise,
        workspace: &Workspace,
        pointed: Option<&(FileRef, u32)>,
    ) -> Evaluation {
        let analysis = Analysis::of(workspace);
        Evaluation::of(
            exercise,
            workspace,
            &analysis.sim,
            &analysis.proof,
            &analysis.review,
            pointed,
        )
    }
}

/// Whether `check` holds, and what was seen.
fn observe(
    check: &GoalCheck,
    exercise: &Exercise,
    workspace: &Workspace,
    sim: &Simulation,
    proof: &Proof,
    review: &Review,
) -> (bool, String) {
    let failing = |prefix: &str| -> Vec<String> {
        review
            .checks
            .iter()
            .filter(|c| c.verdict == Verdict::Fail && c.id.starts_with(prefix))
            .map(|c| c.id.clone())
            .collect()
    };
    match check {
        GoalCheck::Review(want) => {
            // A review that could not make every check is not a pass.
            let got = Outcome::of_review(review.outcome());
            let seen = match got {
                Outcome::Incomplete => format!(
                    "nothing fails, but not tested: {}",
                    review
                        .checks
                        .iter()
                        .filter(|c| c.verdict == Verdict::NotTested)
                        .map(|c| c.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => format!("failing: {}", failing("").join(", ")),
            };
            (got == *want, seen)
        }
        GoalCheck::Passes(prefix) => {
            let failed = failing(prefix);
            (failed.is_empty(), format!("still failing: {}", failed.join(", ")))
        }
        GoalCheck::Proof(want) => {
            let failed: Vec<String> = proof.failed().iter().map(|c| c.label.clone()).collect();
            (Outcome::of(proof.passed()) == *want, format!("failing: {}", failed.join("; ")))
        }
        GoalCheck::Leaks(most) => match review.attack.after.verdict.not_tested() {
            // No leak found by an attack that did not run is not "no leak".
            Some(reason) => (false, format!("the attack could not run: {}", reason.text())),
            None => {
                let leaks = review.attack.after.leaks.len();
                (leaks <= *most, count(leaks, "leak", "leaks"))
            }
        },
        GoalCheck::Starts(want) => match sim.start(Side::After) {
            Ok(_) => (*want, "it starts".to_owned()),
            Err(failure) => (!*want, failure.message.clone()),
        },
        GoalCheck::Confirms(tool) => confirms(sim, tool),
        GoalCheck::Requires { tool, arguments } => {
            let found =
                sim.server.as_ref().and_then(|s| s.module.tools.iter().find(|t| &t.name == tool));
            match found {
                None => (false, format!("the server has no tool `{tool}`")),
                Some(t) => {
                    let mut have: Vec<String> = t.input_schema.required_names().to_vec();
                    let mut want = arguments.clone();
                    swaplab_core::order::sort(&mut have);
                    swaplab_core::order::sort(&mut want);
                    (have == want, format!("it requires {}", list_or_none(&have)))
                }
            }
        }
        GoalCheck::Unchanged(file) => {
            let same = workspace.file(file) == exercise.start.file(file);
            (same, "it was changed".to_owned())
        }
    }
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() { "nothing".to_owned() } else { backticked(items) }
}

/// After the swap: is `tool` called by some skill, and does every skill that can call
/// it from its prose ask first?
fn confirms(sim: &Simulation, tool: &str) -> (bool, String) {
    let agent = match sim.start(Side::After) {
        Ok(agent) => agent,
        Err(failure) => return (false, format!("the agent does not start: {}", failure.message)),
    };
    let mut callers = 0;
    for (skill_id, bound) in &agent.bindings {
        if !bound.contains_key(tool) {
            continue;
        }
        let Some(skill) = agent.skill(skill_id) else { continue };
        callers += 1;
        let gated = agent
            .dispatch_gates(skill, &Target::Prose)
            .into_iter()
            .any(|g| g.name == tool && g.requires_confirmation.is_some());
        if !gated {
            return (false, format!("{skill_id} calls it without asking"));
        }
    }
    if callers == 0 {
        return (false, "no skill can call it".to_owned());
    }
    (true, String::new())
}

/// Every exercise's description, in order.
pub fn exercises() -> Result<Vec<ExerciseInfo>, ContentError> {
    exercise_ids(crate::files()).into_iter().map(|id| parse_exercise(crate::files(), id)).collect()
}

/// The exercise with this id (`NN-slug`), with its workspaces.
pub fn exercise(id: &str) -> Result<Option<Exercise>, ContentError> {
    let Some(id) = exercise_ids(crate::files()).into_iter().find(|i| *i == id) else {
        return Ok(None);
    };
    load(crate::files(), id).map(Some)
}

/// The exercise whose number is `number` (the short link `/x/NN`).
pub fn exercise_by_number(number: u32) -> Option<&'static str> {
    exercise_ids(crate::files()).into_iter().find(|id| number_of(id) == Some(number))
}

fn number_of(id: &str) -> Option<u32> {
    id.split_once('-')?.0.parse().ok()
}

fn exercise_ids(files: &'static [(&'static str, &'static str)]) -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = files
        .iter()
        .filter_map(|(path, _)| {
            let id = path.strip_prefix("exercises/")?.strip_suffix("/exercise.yml")?;
            (!id.contains('/')).then_some(id)
        })
        .collect();
    swaplab_core::order::sort(&mut ids);
    ids
}

fn load(
    files: &'static [(&'static str, &'static str)],
    id: &'static str,
) -> Result<Exercise, ContentError> {
    let info = parse_exercise(files, id)?;
    let path = format!("exercises/{id}/exercise.yml");
    let error = |message: String| ContentError { path: path.clone(), message };
    let base = crate::example_in(files, &info.start)?
        .ok_or_else(|| error(format!("`start: {}` is not an example", info.start)))?;
    let mut start = base.workspace;
    for (number, edit) in info.edits.iter().enumerate() {
        edit.apply(&mut start)
            .map_err(|m| error(format!("edit {} on {}: {m}", number + 1, edit.subject())))?;
    }
    let mut solution = start.clone();
    for (number, edit) in info.solution.iter().enumerate() {
        edit.apply(&mut solution).map_err(|m| {
            error(format!("solution edit {} on {}: {m}", number + 1, edit.subject()))
        })?;
    }
    Ok(Exercise { info, start, solution })
}

const KEYS: [&str; 13] = [
    "title",
    "style",
    "minutes",
    "start",
    "edits",
    "brief",
    "goal",
    "checks",
    "find",
    "hints",
    "solution",
    "explanation",
    "number",
];

fn parse_exercise(
    files: &'static [(&'static str, &'static str)],
    id: &'static str,
) -> Result<ExerciseInfo, ContentError> {
    let path = format!("exercises/{id}/exercise.yml");
    let text = files.iter().find(|(p, _)| *p == path).map(|(_, t)| *t).unwrap_or_default();
    let error = |message: String| ContentError { path: path.clone(), message };
    let node = swaplab_core::yaml::parse(text, Position::START)
        .map_err(|e| error(format!("{}:{}: {}", e.at.line, e.at.column, e.message)))?
        .ok_or_else(|| error("exercise.yml is empty".to_owned()))?;
    if let Some((key, value)) = node
        .as_map()
        .unwrap_or(&[])
        .iter()
        .find(|(key, _)| !key.as_str().is_some_and(|k| KEYS.contains(&k)))
    {
        return Err(error(format!(
            "line {}: unknown key `{}` (known: {})",
            value.span.start.line,
            key.key_text(),
            KEYS.join(", ")
        )));
    }
    let at = |n: &Node, message: &str| error(format!("line {}: {message}", n.span.start.line));
    let text_field = |key: &str| -> Result<String, ContentError> {
        node.get(key)
            .and_then(Node::as_str)
            .map(|t| t.trim().to_owned())
            .ok_or_else(|| error(format!("exercise.yml needs a string `{key}`")))
    };
    let number =
        number_of(id).ok_or_else(|| error(format!("the folder `{id}` must be named `NN-slug`")))?;
    let style = match text_field("style")?.as_str() {
        "find-it" => Style::FindIt,
        "fix-it" => Style::FixIt,
        other => return Err(error(format!("`style: {other}` must be `find-it` or `fix-it`"))),
    };
    let minutes = match node.get("minutes").map(|n| &n.value) {
        Some(YamlValue::Int(n)) if (1..=120).contains(n) => u32::try_from(*n).unwrap_or(1),
        _ => return Err(error("`minutes` must be a whole number from 1 to 120".to_owned())),
    };
    let edits = |key: &str| -> Result<Vec<Edit>, ContentError> {
        let Some(list) = node.get(key) else { return Ok(Vec::new()) };
        let items = list.as_seq().ok_or_else(|| at(list, &format!("`{key}` must be a list")))?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                parse_edit(item).map_err(|m| at(item, &format!("{key} {}: {m}", i + 1)))
            })
            .collect()
    };
    let checks = match node.get("checks") {
        None => Vec::new(),
        Some(list) => list
            .as_seq()
            .ok_or_else(|| at(list, "`checks` must be a list"))?
            .iter()
            .map(|item| parse_check(item).map_err(|m| at(item, &m)))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let find = match node.get("find") {
        None => None,
        Some(f) => Some(parse_find(f).map_err(|m| at(f, &m))?),
    };
    if style == Style::FindIt && find.is_none() {
        return Err(error("a find-it exercise needs `find:`".to_owned()));
    }
    let hints = match node.get("hints") {
        None => Vec::new(),
        Some(list) => list
            .as_seq()
            .ok_or_else(|| at(list, "`hints` must be a list"))?
            .iter()
            .map(|h| h.as_str().map(|t| t.trim().to_owned()).ok_or_else(|| at(h, "a hint is text")))
            .collect::<Result<Vec<_>, _>>()?,
    };
    Ok(ExerciseInfo {
        id,
        number,
        title: text_field("title")?,
        style,
        minutes,
        start: text_field("start")?,
        edits: edits("edits")?,
        brief: text_field("brief")?,
        goal: text_field("goal")?,
        checks,
        find,
        hints,
        solution: edits("solution")?,
        explanation: text_field("explanation")?,
    })
}

fn parse_check(node: &Node) -> Result<GoalCheck, String> {
    let Some([(key, value)]) = node.as_map() else {
        return Err("a check is a mapping with one key, like `review: pass`".to_owned());
    };
    let text =
        || value.as_str().map(str::trim).ok_or_else(|| format!("`{}` takes text", key.key_text()));
    let outcome = || match value.as_str() {
        Some("pass") => Ok(Outcome::Pass),
        Some("fail") => Ok(Outcome::Fail),
        _ => Err(format!("`{}` must be `pass` or `fail`", key.key_text())),
    };
    Ok(match key.as_str().unwrap_or_default() {
        "review" => GoalCheck::Review(outcome()?),
        "proof" => GoalCheck::Proof(outcome()?),
        "passes" => GoalCheck::Passes(text()?.to_owned()),
        "leaks" => match &value.value {
            YamlValue::Int(n) if *n >= 0 => GoalCheck::Leaks(usize::try_from(*n).unwrap_or(0)),
            _ => return Err("`leaks` takes a whole number".to_owned()),
        },
        "starts" => match &value.value {
            YamlValue::Bool(b) => GoalCheck::Starts(*b),
            _ => return Err("`starts` takes true or false".to_owned()),
        },
        "confirms" => GoalCheck::Confirms(text()?.to_owned()),
        "unchanged" => GoalCheck::Unchanged(
            FileRef::parse(text()?)
                .ok_or_else(|| "`unchanged` takes `<area>/<path>`".to_owned())?,
        ),
        "requires" => {
            let tool = value
                .get("tool")
                .and_then(Node::as_str)
                .ok_or_else(|| "`requires` needs `tool:`".to_owned())?;
            let arguments = value
                .get("arguments")
                .and_then(Node::as_seq)
                .ok_or_else(|| "`requires` needs `arguments:` (a list)".to_owned())?
                .iter()
                .map(|a| {
                    a.as_str().map(str::to_owned).ok_or_else(|| "arguments are names".to_owned())
                })
                .collect::<Result<Vec<_>, _>>()?;
            GoalCheck::Requires { tool: tool.to_owned(), arguments }
        }
        other => {
            return Err(format!(
                "unknown check `{other}` (known: review, proof, passes, leaks, starts, confirms, requires, unchanged)"
            ));
        }
    })
}

fn parse_find(node: &Node) -> Result<Find, String> {
    let file = node
        .get("file")
        .and_then(Node::as_str)
        .and_then(FileRef::parse)
        .ok_or_else(|| "`find` needs `file: <area>/<path>`".to_owned())?;
    let lines = match (node.get("line").and_then(Node::as_str), node.get("lines")) {
        (Some(line), None) => vec![line.to_owned()],
        (None, Some(list)) => list
            .as_seq()
            .ok_or_else(|| "`find.lines` must be a list".to_owned())?
            .iter()
            .map(|l| {
                l.as_str().map(str::to_owned).ok_or_else(|| "`find.lines` lists text".to_owned())
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err("`find` needs `line:` or `lines:`, not both".to_owned()),
    };
    if lines.iter().any(|l| l.trim().is_empty()) {
        return Err("`find` texts must not be empty".to_owned());
    }
    Ok(Find { file, lines })
}
