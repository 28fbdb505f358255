// The 300-skill workspace of the scaling benchmark (`crates/swaplab-core/benches/support/
// scale.rs`), written as a folder the playground's "Import folder…" loads: the
// tutorial's three skills copied with numbered names (`check_tickets_7`, its tools,
// `mcp/hubspot_crm:list_open_tickets_7`), and every copy's tools on the MCP server. The
// same rule as the Rust generator, so the browser and criterion measure the same work.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const TUTORIAL = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "content", "examples", "tutorial");
const NAMES = ["check_tickets", "identify_customer", "log_interaction", "list_open_tickets", "find_contact_by_email", "add_timeline_note"];
const SERVER = "server/scripts/mcp_crm_server.py";

const renamed = (text, copy) => (copy === 0 ? text : NAMES.reduce((t, name) => t.split(name).join(`${name}_${copy}`), text));

function filesUnder(dir, prefix = "") {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix + entry.name;
    return entry.isDirectory() ? filesUnder(path.join(dir, entry.name), `${relative}/`) : [relative];
  });
}

/** Writes the workspace with `skills` skills (a multiple of three) into a new folder
 *  and returns the folder's path; its areas are its `before/`, `after/`, `server/` and
 *  `crm/` folders. */
export function writeScaleWorkspace(skills) {
  if (skills < 3 || skills % 3) throw new Error(`${skills} skills: a multiple of three`);
  const copies = skills / 3;
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "swaplab-scale-")), `scale-${skills}`);
  const write = (relative, text) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  };
  for (const file of filesUnder(TUTORIAL).filter((f) => /^(before|after|server|crm)\//.test(f))) {
    const text = fs.readFileSync(path.join(TUTORIAL, file), "utf8");
    write(file, text);
    const [area, ...rest] = file.split("/");
    const inArea = rest.join("/");
    const skill = inArea.startsWith("skills/");
    const tool = inArea.startsWith("tools/");
    if ((area !== "before" && area !== "after") || (!skill && !tool)) continue;
    for (let copy = 1; copy < copies; copy++) {
      const target = tool ? inArea.replace(".py", `_${copy}.py`) : renamed(inArea, copy);
      write(`${area}/${target}`, renamed(text, copy));
    }
  }
  const server = fs.readFileSync(path.join(TUTORIAL, SERVER), "utf8");
  const start = server.indexOf("\n\n@mcp.tool(");
  const end = server.indexOf("\n\nif __name__");
  if (start < 0 || end < 0) throw new Error(`${SERVER}: no tools, or no main guard`);
  const tools = server.slice(start, end);
  let grown = server.slice(0, end);
  for (let copy = 1; copy < copies; copy++) grown += renamed(tools, copy);
  write(SERVER, grown + server.slice(end));
  return root;
}
