//! The built-in tutorial workspace read from `content/examples/tutorial`, shared by the
//! benchmarks through `#[path = "support/tutorial.rs"] mod tutorial;` (read once, outside the
//! measured loops).
#![allow(clippy::disallowed_methods)]

use std::path::Path;

use swaplab_core::{FileRef, Workspace};

/// The tutorial example as a workspace.
pub fn tutorial() -> Workspace {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../content/examples/tutorial");
    let mut workspace = Workspace::default();
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("example folder").filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                let relative = path
                    .strip_prefix(&root)
                    .expect("under root")
                    .to_string_lossy()
                    .replace('\\', "/");
                if let Some(file) = FileRef::parse(&relative) {
                    workspace.set_file(&file, text);
                }
            }
        }
    }
    workspace
}
