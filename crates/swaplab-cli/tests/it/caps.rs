//! The command line reads a folder under the web import's caps: 1 MiB per file, 2,000
//! files and 16 MiB per folder, each checked before the file is read, each refusal a
//! clear message and exit code 2.

use std::fs;

use swaplab_core::archive::MAX_TOTAL_BYTES;
use swaplab_core::rasa::project::{MAX_FILE_BYTES, MAX_PROJECT_FILES};

use crate::{scratch, stderr, swaplab};

#[test]
fn a_folder_of_the_file_cap_is_read_and_one_file_more_is_refused() {
    let dir = scratch("caps-count");
    fs::create_dir_all(dir.join("notes")).unwrap();
    for n in 0..MAX_PROJECT_FILES {
        fs::write(dir.join("notes").join(format!("{n:05}.md")), "").unwrap();
    }
    // Hidden files and caches are not counted.
    fs::create_dir_all(dir.join("__pycache__")).unwrap();
    fs::write(dir.join("__pycache__/x.pyc"), "").unwrap();
    fs::write(dir.join(".hidden"), "").unwrap();
    let at = swaplab(&["parse", dir.to_str().unwrap()]);
    assert_ne!(at.status.code(), Some(2), "{}", stderr(&at));
    fs::write(dir.join("one-more.md"), "").unwrap();
    let over = swaplab(&["parse", dir.to_str().unwrap()]);
    assert_eq!(over.status.code(), Some(2));
    assert!(
        stderr(&over).contains("holds more than 2000 files (hidden folders and caches not counted), the most Swap Lab reads from one folder"),
        "{}",
        stderr(&over)
    );
}

#[test]
fn a_file_of_the_size_cap_is_read_and_one_byte_more_is_refused() {
    let dir = scratch("caps-size");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("memory.yml");
    fs::write(&file, format!("#{}", "x".repeat(MAX_FILE_BYTES - 1))).unwrap();
    let at = swaplab(&["parse", dir.to_str().unwrap()]);
    assert_ne!(at.status.code(), Some(2), "{}", stderr(&at));
    fs::write(&file, format!("#{}", "x".repeat(MAX_FILE_BYTES))).unwrap();
    let over = swaplab(&["parse", dir.to_str().unwrap()]);
    assert_eq!(over.status.code(), Some(2));
    assert!(
        stderr(&over).contains(
            "memory.yml is 1048577 bytes, over the 1048576-byte limit for one project file"
        ),
        "{}",
        stderr(&over)
    );
}

#[test]
fn a_folder_of_the_total_cap_is_read_and_one_byte_more_is_refused() {
    let dir = scratch("caps-total");
    fs::create_dir_all(&dir).unwrap();
    let files = MAX_TOTAL_BYTES / MAX_FILE_BYTES;
    for n in 0..files {
        fs::write(dir.join(format!("big{n:02}.txt")), "x".repeat(MAX_FILE_BYTES)).unwrap();
    }
    let at = swaplab(&["parse", dir.to_str().unwrap()]);
    assert_ne!(at.status.code(), Some(2), "{}", stderr(&at));
    fs::write(dir.join("zz-one-more.txt"), "x").unwrap();
    let over = swaplab(&["parse", dir.to_str().unwrap()]);
    assert_eq!(over.status.code(), Some(2));
    assert!(
        stderr(&over).contains("holds more than 16 MiB of files, the most Swap Lab reads from one folder; the limit was passed at"),
        "{}",
        stderr(&over)
    );
    assert!(stderr(&over).contains("zz-one-more.txt"), "{}", stderr(&over));
}
