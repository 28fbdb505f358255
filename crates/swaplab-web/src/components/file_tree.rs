//! The workspace's files, grouped by area and folder, with what the swap did to each.

use std::rc::Rc;

use swaplab_core::{Area, FileRef, Workspace};
use yew::prelude::*;

/// What sets a file apart in the tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileStatus {
    /// The reader changed it from the example.
    pub edited: bool,
    /// For a before/after file: the swap changed (`M`), added (`A`) or removed (`D`) it.
    pub swap: Option<char>,
}

/// Props for [`FileTree`].
#[derive(Properties, PartialEq)]
pub struct FileTreeProps {
    /// The files.
    pub workspace: Rc<Workspace>,
    /// The file shown in the editor.
    pub open: Option<FileRef>,
    /// Badges per file.
    pub status: Rc<Vec<(FileRef, FileStatus)>>,
    /// Called when the reader picks a file.
    pub on_open: Callback<FileRef>,
}

/// The file tree.
#[component]
pub fn FileTree(props: &FileTreeProps) -> Html {
    let areas = Area::ALL.into_iter().filter(|a| !props.workspace.area(*a).is_empty());
    html! {
        <nav class="file-tree" aria-label="Files">
            { for areas.map(|area| area_section(props, area)) }
        </nav>
    }
}

fn area_section(props: &FileTreeProps, area: Area) -> Html {
    let mut rows = Vec::new();
    let mut open_dirs: Vec<&str> = Vec::new();
    for (path, _) in props.workspace.area(area).files() {
        let parts: Vec<&str> = path.split('/').collect();
        let dirs = &parts[..parts.len() - 1];
        let common = open_dirs.iter().zip(dirs).take_while(|(a, b)| a == b).count();
        open_dirs.truncate(common);
        for (depth, dir) in dirs.iter().enumerate().skip(common) {
            rows.push(html! {
                <li class="dir" style={format!("--depth:{depth}")}>{ format!("{dir}/") }</li>
            });
            open_dirs.push(dir);
        }
        let file = FileRef::new(area, path);
        rows.push(file_row(props, &file, dirs.len(), parts[parts.len() - 1]));
    }
    html! {
        <section class={classes!("area", area.prefix())}>
            <h3>{ area.title() }</h3>
            <ul>{ for rows }</ul>
        </section>
    }
}

fn file_row(props: &FileTreeProps, file: &FileRef, depth: usize, name: &str) -> Html {
    let status = props.status.iter().find(|(f, _)| f == file).map(|(_, s)| *s).unwrap_or_default();
    let current = props.open.as_ref() == Some(file);
    let title = match status.swap {
        Some('M') => "changed by the swap",
        Some('A') => "added by the swap",
        Some('D') => "removed by the swap",
        _ => "",
    };
    let onclick = {
        let on_open = props.on_open.clone();
        let file = file.clone();
        Callback::from(move |_: MouseEvent| on_open.emit(file.clone()))
    };
    html! {
        <li class="file" style={format!("--depth:{depth}")}>
            <button
                type="button"
                class={classes!(current.then_some("current"))}
                aria-current={current.then_some("true")}
                data-file={file.to_string()}
                {onclick}
            >
                <span class="name">{ name.to_owned() }</span>
                if status.edited {
                    <span class="badge edited" title="you edited this file">{ "●" }<span class="sr-only">{ " (edited)" }</span></span>
                }
                if let Some(code) = status.swap {
                    <span class={classes!("badge", "swap", code.to_string())} title={title}>{ code.to_string() }</span>
                }
            </button>
        </li>
    }
}
