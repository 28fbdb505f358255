//! The whole workspace read at once: both projects as Rasa reads them, the MCP server as
//! FastMCP would publish it. The simulation, the proof and the review start from here.

use std::sync::Arc;

use serde::Serialize;

use crate::python::{McpServerModule, McpTool, Schema, scan_mcp_server};
use crate::rasa::cache::ReadCache;
use crate::rasa::project::{ProjectReport, read_project_with};
use crate::workspace::Workspace;

/// Both projects and the server.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkspaceReport {
    /// The project before the swap (shared with the memo that may keep it).
    pub before: Arc<ProjectReport>,
    /// The project after the swap.
    pub after: Arc<ProjectReport>,
    /// The server source's path, when the workspace has one.
    pub server_file: Option<String>,
    /// What the server publishes (empty when there is no server file). Shared with the
    /// simulation's server, and kept between reruns by a memo.
    pub server: Option<Arc<McpServerModule>>,
}

/// One `tools/list` entry, in the MCP specification's shape and key order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ListedTool<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// Its description.
    pub description: &'a str,
    /// The arguments' JSON schema.
    #[serde(rename = "inputSchema")]
    pub input_schema: &'a Schema,
    /// The result's JSON schema, when the tool publishes one.
    #[serde(rename = "outputSchema", skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<&'a Schema>,
}

impl<'a> From<&'a McpTool> for ListedTool<'a> {
    fn from(tool: &'a McpTool) -> ListedTool<'a> {
        ListedTool {
            name: &tool.name,
            description: &tool.description,
            input_schema: &tool.input_schema,
            output_schema: tool.output_schema.as_ref(),
        }
    }
}

impl WorkspaceReport {
    /// The `tools/list` result the server would send: `{"tools": [...]}` entries.
    pub fn tools_list(&self) -> Vec<ListedTool<'_>> {
        self.server.iter().flat_map(|server| server.tools.iter().map(ListedTool::from)).collect()
    }
}

/// Reads a workspace. The server is the first `.py` file of the server area.
pub fn read_workspace(workspace: &Workspace) -> WorkspaceReport {
    read_workspace_with(workspace, &mut ReadCache::default())
}

/// [`read_workspace`], reusing what `memo` read before from the same files.
pub fn read_workspace_with(workspace: &Workspace, memo: &mut ReadCache) -> WorkspaceReport {
    // The server is the file that makes a FastMCP server; the others are its modules.
    let python = || workspace.server.files().filter(|(path, _)| path.ends_with(".py"));
    let server_file =
        python().find(|(_, text)| text.contains("FastMCP")).or_else(|| python().next());
    WorkspaceReport {
        before: read_project_with(&workspace.before, memo),
        after: read_project_with(&workspace.after, memo),
        server_file: server_file.map(|(path, _)| path.to_owned()),
        server: server_file
            .map(|(path, text)| memo.server_module(path, text, || scan_mcp_server(path, text))),
    }
}
