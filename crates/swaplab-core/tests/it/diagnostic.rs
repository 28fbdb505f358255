//! `LineIndex`: byte offsets to 1-based lines and character columns, on any text.

use swaplab_core::diagnostic::{LineIndex, Position};

/// The slow, obviously right answer.
fn naive(text: &str, offset: usize) -> Position {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Position::new(u32::try_from(line).unwrap_or(0), u32::try_from(column).unwrap_or(0))
}

#[test]
fn positions_match_a_naive_count_across_checkpoints() {
    let texts = [
        "plain ascii\nsecond line\n".to_owned(),
        "é".repeat(100) + "\nnext: ü\r\nthird 🙂 line",
        format!("{}🙂{}", "a".repeat(63), "b".repeat(200)),
        format!("\u{feff}---\n{}", "ß€".repeat(500)),
    ];
    for text in &texts {
        let index = LineIndex::new(text);
        for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
            assert_eq!(index.position(offset), naive(text, offset), "offset {offset} of {text:?}");
        }
    }
}

#[test]
fn offsets_inside_a_char_snap_back_and_past_the_end_clamp() {
    let text = "a€b";
    let index = LineIndex::new(text);
    assert_eq!(index.position(2), Position::new(1, 2), "inside € snaps to its start");
    assert_eq!(index.position(99), Position::new(1, 4));
    assert_eq!(index.line_text(1), "a€b");
    assert_eq!(LineIndex::new("x\r\ny\n").line_text(1), "x", "CR belongs to the break");
    assert_eq!(LineIndex::new("x\ny\n").line_count(), 2);
}
