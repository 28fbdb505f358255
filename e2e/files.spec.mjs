// The file tree's operations as a reader uses them: add a file, type in it, rename it,
// delete it, all inline and from the keyboard; import a project from a zip built here
// (picked, dropped) and from a folder; and a bad zip that leaves the workspace alone.
import { test, expect } from "@playwright/test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { open, shot, watchErrors } from "./helpers.mjs";
import { writeScaleWorkspace } from "./scale-workspace.mjs";

const editor = (page) => page.getByRole("textbox", { name: /^Contents of / });
const tree = (page) => page.getByRole("navigation", { name: "Files" });

/** Every file the tree lists, as `area/path`. */
const listed = (page) =>
  tree(page).locator("[data-file]").evaluateAll((buttons) => buttons.map((b) => b.dataset.file));

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A minimal zip: `entries` are `{ name, data, deflate?, flags? }`. */
function zip(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const raw = Buffer.from(entry.data);
    const data = entry.deflate ? zlib.deflateRawSync(raw) : raw;
    const fields = (central) => {
      const head = Buffer.alloc(central ? 46 : 30);
      let at = 0;
      head.writeUInt32LE(central ? 0x02014b50 : 0x04034b50, at); at += 4;
      if (central) { head.writeUInt16LE(0x031e, at); at += 2; }
      head.writeUInt16LE(20, at); at += 2;
      head.writeUInt16LE(0x800 | (entry.flags ?? 0), at); at += 2;
      head.writeUInt16LE(entry.deflate ? 8 : 0, at); at += 2;
      head.writeUInt32LE(0x00210000, at); at += 4;
      head.writeUInt32LE(crc32(raw), at); at += 4;
      head.writeUInt32LE(data.length, at); at += 4;
      head.writeUInt32LE(raw.length, at); at += 4;
      head.writeUInt16LE(name.length, at); at += 2;
      head.writeUInt16LE(0, at); at += 2;
      if (central) {
        at += 6; // comment, disk, internal attributes
        head.writeUInt32LE((0o100644 << 16) >>> 0, at); at += 4;
        head.writeUInt32LE(offset, at);
      }
      return Buffer.concat([head, name]);
    };
    const local = Buffer.concat([fields(false), data]);
    centrals.push(fields(true));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const SKILL = "---\nname: greet\ndescription: Say hello.\n---\nGreet the customer by name.\n";

/** A project zipped from its folder, with the noise a Mac and git add. */
const projectZip = () =>
  zip([
    { name: "my-project/skills/greet/skill.md", data: SKILL, deflate: true },
    { name: "my-project/config.yml", data: "recipe: default.v1\n" },
    { name: "my-project/logo.png", data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]) },
    { name: "my-project/.git/HEAD", data: "ref: refs/heads/main\n" },
    { name: "__MACOSX/my-project/._config.yml", data: Buffer.from([0, 5, 22, 7]) },
  ]);

test("add a file, type in it, rename it and delete it, from the keyboard", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  const files = tree(page);

  // Add: the button opens an inline input; a bad path is refused next to it.
  const add = files.getByRole("button", { name: "Add file to Mock CRM" });
  await add.focus();
  await page.keyboard.press("Enter");
  const input = files.getByRole("textbox", { name: "Path of the new file in Mock CRM" });
  await expect(input).toBeFocused();
  await page.keyboard.type("../secrets.yml");
  await page.keyboard.press("Enter");
  await expect(files.getByRole("alert")).toHaveText("“../secrets.yml” climbs out of its folder with “..”.");
  await expect(input).toHaveAttribute("aria-invalid", "true");
  await shot(page, testInfo, "files-add-refused");
  await input.fill("notes/todo.yml");
  await page.keyboard.press("Enter");
  await expect(input).toHaveCount(0);
  await expect(files.locator('[data-file="crm/notes/todo.yml"]')).toBeFocused();
  await expect(editor(page)).toHaveAccessibleName("Contents of crm/notes/todo.yml");
  await expect(editor(page)).toHaveValue("");

  // Type in it.
  await editor(page).click();
  await page.keyboard.type("owner: alice\n");
  await expect(editor(page)).toHaveValue("owner: alice\n");

  // Rename: the input holds the path, the name without its extension selected.
  await files.getByRole("button", { name: "Rename crm/notes/todo.yml" }).click();
  const rename = files.getByRole("textbox", { name: "New path of crm/notes/todo.yml" });
  await expect(rename).toBeFocused();
  await expect(rename).toHaveValue("notes/todo.yml");
  expect(await rename.evaluate((el) => el.value.slice(el.selectionStart, el.selectionEnd))).toBe("todo");
  // Onto an existing file: refused; Escape gives the focus back to the file.
  await rename.fill("crm.yml");
  await page.keyboard.press("Enter");
  await expect(files.getByRole("alert")).toHaveText("crm/crm.yml already exists.");
  await page.keyboard.press("Escape");
  await expect(rename).toHaveCount(0);
  await expect(files.locator('[data-file="crm/notes/todo.yml"]')).toBeFocused();
  await files.getByRole("button", { name: "Rename crm/notes/todo.yml" }).click();
  await rename.fill("seed/todo.yml");
  await shot(page, testInfo, "files-rename");
  await rename.press("Enter");
  await expect(files.locator('[data-file="crm/seed/todo.yml"]')).toBeVisible();
  await expect(files.locator('[data-file="crm/notes/todo.yml"]')).toHaveCount(0);
  await expect(editor(page)).toHaveAccessibleName("Contents of crm/seed/todo.yml");
  await expect(editor(page)).toHaveValue("owner: alice\n");

  // Delete: asks inline, Keep is the safe default, then Delete removes it.
  await files.getByRole("button", { name: "Delete crm/seed/todo.yml" }).click();
  const ask = files.getByRole("group", { name: "Delete crm/seed/todo.yml?" });
  await expect(ask.getByRole("button", { name: "Keep" })).toBeFocused();
  await shot(page, testInfo, "files-delete-confirm");
  await page.keyboard.press("Shift+Tab");
  await expect(ask.getByRole("button", { name: "Delete" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(files.locator('[data-file="crm/seed/todo.yml"]')).toHaveCount(0);
  await expect(ask).toHaveCount(0);
  // The file before it in the tree is opened: the example's mock CRM script.
  await expect(editor(page)).toHaveAccessibleName("Contents of crm/scripts/mock_hubspot.py");
  // Added, edited, renamed and deleted again: the workspace is the example once more.
  await expect(page.locator(".save-status")).toHaveText("The example as shipped");
  watch.check();
});

test("a zip picked with the Import button loads a project into the chosen area", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  const files = tree(page);
  const shipped = await listed(page);
  const before = shipped.filter((f) => f.startsWith("before/"));
  await files.locator('input[data-import="files"]').setInputFiles({
    name: "my-project.zip",
    mimeType: "application/zip",
    buffer: projectZip(),
  });
  const panel = files.getByRole("region", { name: "Import" });
  await expect(panel).toContainText("my-project.zip: 2 files, one project.");
  await expect(panel).toContainText("Skipped 1: logo.png (not UTF-8 text). 2 hidden or cache files left out.");
  await expect(panel.getByRole("combobox")).toBeFocused();
  await panel.getByRole("combobox").selectOption({ label: "After the swap" });
  await expect(panel.getByRole("radio", { name: "Replace the area's files" })).toBeChecked();
  await shot(page, testInfo, "files-import-panel");
  await panel.getByRole("button", { name: "Import", exact: true }).click();
  await expect(panel).toHaveCount(0);
  await expect(files.getByRole("status")).toContainText(
    "Imported 2 files from my-project.zip into After the swap, replacing its files. " +
      "Skipped 1: logo.png (not UTF-8 text). 2 hidden or cache files left out.",
  );
  const after = (await listed(page)).filter((f) => f.startsWith("after/"));
  expect(after).toEqual(["after/config.yml", "after/skills/greet/skill.md"]);
  expect((await listed(page)).filter((f) => f.startsWith("before/"))).toEqual(before);
  await files.locator('[data-file="after/skills/greet/skill.md"]').click();
  await expect(editor(page)).toHaveValue(SKILL);
  // The files are no longer the tutorial's swap: the header names the import, and
  // offers the way back.
  await expect(page.locator(".example-title")).toContainText("Imported: my-project.zip");
  await expect(page.locator(".example-title")).not.toContainText("The tutorial's swap");
  await shot(page, testInfo, "files-imported");
  // It stays named after a reload (the draft keeps it).
  await page.reload();
  await expect(page.locator(".example-title")).toContainText("Imported: my-project.zip");
  await page.getByRole("button", { name: "Back to “The tutorial's swap”" }).click();
  await expect(page.locator(".confirm")).toContainText("Discard the imported files and open “The tutorial's swap” again?");
  await page.getByRole("button", { name: "Discard edits" }).click();
  await expect(page.locator(".example-title")).toContainText("The tutorial's swap");
  await expect(page.locator(".save-status")).toHaveText("The example as shipped");
  expect(await listed(page)).toEqual(shipped);
  watch.check();
});

test("a zip dropped on the tree can add files to the areas it names", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  const files = tree(page);
  const was = await listed(page);
  const bytes = zip([
    { name: "swap/before/notes.md", data: "# Notes\n", deflate: true },
    { name: "swap/server/extra_tools.py", data: "def extra():\n    return 1\n" },
    { name: "swap/README.md", data: "not in an area\n" },
  ]);
  const transfer = await page.evaluateHandle((data) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([new Uint8Array(data)], "swap.zip", { type: "application/zip" }));
    return transfer;
  }, [...bytes]);
  await files.dispatchEvent("dragover", { dataTransfer: transfer });
  await expect(files).toHaveClass(/dropping/);
  await files.dispatchEvent("drop", { dataTransfer: transfer });
  await expect(files).not.toHaveClass(/dropping/);
  const panel = files.getByRole("region", { name: "Import" });
  await expect(panel.getByRole("listitem")).toHaveText(["Before the swap: 1 file", "MCP server: 1 file"]);
  await panel.getByRole("radio", { name: "Add to their files" }).check();
  await panel.getByRole("button", { name: "Import", exact: true }).click();
  await expect(files.getByRole("status")).toContainText(
    "Imported swap.zip: Before the swap 1 file, MCP server 1 file, added to their files. " +
      "Left out 1 file outside before/, after/, server/ and crm/: README.md.",
  );
  // Added to what was there: every file before, and the two new ones.
  expect((await listed(page)).toSorted()).toEqual([...was, "before/notes.md", "server/extra_tools.py"].toSorted());
  watch.check();
});

test("a folder picked with Import folder… skips what is not text", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  const files = tree(page);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "swaplab-folder-"));
  const root = path.join(dir, "seed-data");
  fs.mkdirSync(path.join(root, ".git"), { recursive: true });
  fs.writeFileSync(path.join(root, "crm.yml"), "contacts: []\n");
  fs.writeFileSync(path.join(root, "more.yml"), "tickets: []\n");
  fs.writeFileSync(path.join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  fs.writeFileSync(path.join(root, "photo.jpg"), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00]));
  await files.locator('input[data-import="folder"]').setInputFiles(root);
  const panel = files.getByRole("region", { name: "Import" });
  await expect(panel).toContainText("the folder seed-data: 2 files, one project.");
  await panel.getByRole("combobox").selectOption({ label: "Mock CRM" });
  await panel.getByRole("button", { name: "Import", exact: true }).click();
  await expect(files.getByRole("status")).toContainText(
    "Imported 2 files from the folder seed-data into Mock CRM, replacing its files. " +
      "Skipped 1: photo.jpg (not UTF-8 text). 1 hidden or cache file left out.",
  );
  expect((await listed(page)).filter((f) => f.startsWith("crm/"))).toEqual(["crm/crm.yml", "crm/more.yml"]);
  fs.rmSync(dir, { recursive: true, force: true });
  watch.check();
});

// A long area's rows come in blocks the browser skips out of view. The reader must not
// be able to tell: every row is in the page, one list to a screen reader, and a row far
// down scrolls into view and opens like any other.
test("a 300-skill project's tree is one list of every row, and a far row opens", async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const watch = watchErrors(page);
  await open(page, "play");
  const files = tree(page);
  const folder = writeScaleWorkspace(300);
  await files.locator('input[data-import="folder"]').setInputFiles(folder);
  await files.getByRole("region", { name: "Import" }).getByRole("button", { name: "Import", exact: true }).click();
  await expect(files.getByRole("status")).toContainText("Imported", { timeout: 30_000 });
  const after = files.locator("section.area.after");
  const rows = await after.locator("li.file").count();
  expect(rows, "a long area").toBeGreaterThan(300);
  expect(await after.locator("li.block").count(), "in blocks").toBeGreaterThan(1);
  // One list, with one item per folder and file row, to the accessibility tree.
  const lists = after.getByRole("list");
  await expect(lists).toHaveCount(1);
  const items = await lists.getByRole("listitem").count();
  expect(items).toBe(await after.locator("li.file, li.dir").count());
  const far = files.locator('[data-file="after/skills/log_interaction_99/skill.md"]');
  await far.click();
  await expect(editor(page)).toHaveAccessibleName("Contents of after/skills/log_interaction_99/skill.md");
  await expect(far).toBeInViewport();
  await shot(page, testInfo, "files-300-skills-far-row");
  fs.rmSync(path.dirname(folder), { recursive: true, force: true });
  watch.check();
});

test("a bad zip says what is wrong and leaves the workspace as it was", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  const files = tree(page);
  const was = await listed(page);
  const input = files.locator('input[data-import="files"]');
  const good = projectZip();

  await input.setInputFiles({ name: "broken.zip", mimeType: "application/zip", buffer: good.subarray(0, good.length >> 1) });
  await expect(files.getByRole("alert")).toHaveText(
    "broken.zip was not imported. The zip archive is cut short: its table of contents, at the end, is missing.",
  );
  await shot(page, testInfo, "files-bad-zip");

  await input.setInputFiles({ name: "notes.zip", mimeType: "application/zip", buffer: Buffer.from("just some text\n") });
  await expect(files.getByRole("alert")).toContainText("notes.zip was not imported. This is not a zip archive.");

  const locked = zip([{ name: "p/a.yml", data: "a: 1\n", flags: 1 }]);
  await input.setInputFiles({ name: "locked.zip", mimeType: "application/zip", buffer: locked });
  await expect(files.getByRole("alert")).toContainText("p/a.yml needs a password");

  await files.locator(".import-status").getByRole("button", { name: "Dismiss" }).click();
  await expect(files.getByRole("alert")).toHaveCount(0);
  expect(await listed(page)).toEqual(was);
  await expect(page.locator(".save-status")).toHaveText("The example as shipped");
  watch.check();
});
