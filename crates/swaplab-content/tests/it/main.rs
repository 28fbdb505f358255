//! Content is checked like code: every chapter and example the site lists must load.

use swaplab_content::{DEFAULT_EXAMPLE, chapter, chapters, example, examples, files};
use swaplab_core::{Area, FileRef};

mod chapters;
mod examples;
mod exercises;
mod hostile;
// The core's corpus reader and URL oracle, shared rather than written twice.
#[path = "../../../swaplab-core/tests/it/hostile_corpus.rs"]
mod hostile_corpus;
mod prerender;
mod receipt;
mod workshop;

#[test]
fn chapters_are_numbered_uniquely_and_titled() {
    let chapters = chapters();
    assert!(!chapters.is_empty());
    let mut numbers: Vec<u32> = chapters.iter().map(|c| c.number).collect();
    numbers.dedup();
    assert_eq!(numbers.len(), chapters.len(), "two chapters share a number");
    for c in chapters {
        assert!(!c.title.is_empty() && c.title != c.slug, "{} has no `# ` title", c.slug);
        assert_eq!(chapter(c.slug), Some(c));
        assert!(
            c.slug.chars().all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
        );
    }
    assert_eq!(chapter("no-such-chapter"), None);
}

#[test]
fn the_chapter_index_matches_the_chapter_files() {
    // The web app knows chapters by this index alone and fetches `path` from the site,
    // which serves content/chapters/ as it is: every file there must be a chapter.
    let files_in_chapters: Vec<&str> =
        files().iter().map(|(p, _)| *p).filter(|p| p.starts_with("chapters/")).collect();
    let paths: Vec<&str> = chapters().iter().map(|c| c.path).collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, files_in_chapters);
    for c in chapters() {
        assert_eq!(c.path, format!("chapters/{:02}-{}.md", c.number, c.slug));
        let text = files().iter().find(|(p, _)| *p == c.path).map(|(_, t)| *t);
        assert_eq!(Some(c.markdown), text, "{}", c.path);
        let heading = c.markdown.lines().find_map(|l| l.strip_prefix("# ")).map(str::trim);
        assert_eq!(heading, Some(c.title), "{}", c.path);
    }
}

#[test]
fn every_example_loads_with_all_four_areas() {
    let infos = examples().expect("every example.yml parses");
    assert!(infos.iter().any(|i| i.id == DEFAULT_EXAMPLE));
    for info in infos {
        let example = example(info.id).expect("loads").expect("exists");
        assert_eq!(example.info, info);
        assert!(!info.title.is_empty() && !info.summary.is_empty());
        for area in Area::ALL {
            assert!(
                !example.workspace.area(area).is_empty(),
                "{}: {} is empty",
                info.id,
                area.prefix()
            );
        }
    }
    assert_eq!(example("no-such-example"), Ok(None));
}

#[test]
fn the_default_example_is_the_tutorial_shaped_swap() {
    let ws = example(DEFAULT_EXAMPLE).unwrap().unwrap().workspace;
    for skill in ["identify_customer", "check_tickets", "log_interaction"] {
        let path = format!("skills/{skill}/skill.md");
        assert!(ws.before.file(&path).is_some() && ws.after.file(&path).is_some(), "{skill}");
    }
    // The swap removes the local tool code and adds the server; the CRM seed names Dana.
    assert!(ws.before.file("skills/check_tickets/tools.py").is_some());
    assert!(ws.after.file("skills/check_tickets/tools.py").is_none());
    assert!(ws.file(&FileRef::new(Area::Server, "scripts/mcp_crm_server.py")).is_some());
    assert!(ws.file(&FileRef::new(Area::Crm, "crm.yml")).unwrap().contains("Dana"));
}

#[test]
fn embedded_files_are_sorted_and_nonempty() {
    let paths: Vec<&str> = files().iter().map(|(p, _)| *p).collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    assert_eq!(paths, sorted);
    assert!(files().iter().all(|(_, text)| !text.trim().is_empty()));
}
