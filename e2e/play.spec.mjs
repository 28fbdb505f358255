// The playground as a reader uses it: read the swap, type into a file, watch the diff
// follow, leave and come back to the draft, and reset it.
import { test, expect } from "@playwright/test";
import { open, shot, watchErrors } from "./helpers.mjs";

const editor = (page) => page.getByRole("textbox", { name: /^Contents of / });

/** Opens the CRM seed, appends a line to it, and waits until the draft is saved. */
async function appendToCrmSeed(page, line) {
  await page.locator('[data-file="crm/crm.yml"]').click();
  await editor(page).press("Control+End");
  await page.keyboard.type(`\n${line}\n`);
  await expect(page.locator(".save-status")).toHaveText("Draft saved in this browser");
}

test("the tutorial's swap is loaded, with the first changed skill open", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  const files = page.getByRole("navigation", { name: "Files" });
  for (const area of ["Before the swap", "After the swap", "MCP server", "Mock CRM"]) {
    await expect(files.getByRole("heading", { name: area })).toBeVisible();
  }
  await expect(editor(page)).toHaveAccessibleName("Contents of after/skills/check_tickets/skill.md");
  await expect(editor(page)).toHaveValue(/import_tools:\n  - mcp\/hubspot_crm:list_open_tickets/);
  await page.getByRole("tab", { name: /^Diff/ }).click();
  const diff = page.locator(".diff-pane");
  await expect(diff).toContainText("before/skills/check_tickets/skill.md → after/skills/check_tickets/skill.md");
  await expect(diff.locator("tr.added")).toHaveCount(2);
  // The swap removes the local tool code: the file tree and the change list say so.
  await expect(files.locator('[data-file="before/skills/check_tickets/tools.py"] .badge.swap')).toHaveText("D");
  await expect(diff.locator(".changes")).toContainText("skills/check_tickets/tools.py");
  await expect(page.locator(".save-status")).toHaveText("The example as shipped");
  await shot(page, testInfo, "play-default");
  watch.check();
});

test("typing changes the diff at once and keeps the caret where it was", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await page.locator('[data-file="after/skills/identify_customer/skill.md"]').click();
  const area = editor(page);
  await expect(area).toHaveAccessibleName("Contents of after/skills/identify_customer/skill.md");
  await page.getByRole("tab", { name: /^Diff/ }).click();
  const diff = page.locator(".diff-pane");
  await expect(diff.locator("tr.added")).toHaveCount(1);

  // Put the caret right after "import_tools:\n" and type a new import line there.
  const value = await area.inputValue();
  const at = value.indexOf("  - mcp/hubspot_crm:find_contact_by_email");
  await area.focus();
  await area.evaluate((el, pos) => el.setSelectionRange(pos, pos), at);
  await page.keyboard.type("  - mcp/hubspot_crm:list_open_tickets\n");
  expect(await area.evaluate((el) => el.selectionStart)).toBe(at + "  - mcp/hubspot_crm:list_open_tickets\n".length);
  await expect(area).toHaveValue(/  - mcp\/hubspot_crm:list_open_tickets\n  - mcp\/hubspot_crm:find_contact_by_email/);

  await expect(diff.locator("tr.added")).toHaveCount(2);
  await expect(diff.locator("tr.added").first()).toContainText("mcp/hubspot_crm:list_open_tickets");
  await expect(page.locator(".editor-bar .badge.edited")).toBeVisible();
  await expect(page.locator('[data-file="after/skills/identify_customer/skill.md"] .badge.edited')).toBeVisible();
  await expect(page.locator(".save-status")).toHaveText("Draft saved in this browser");
  await shot(page, testInfo, "play-edited");
  watch.check();
});

test("a draft survives a reload, and reset brings the example back", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await appendToCrmSeed(page, "# a note only this reader wrote");

  await page.reload();
  await expect(page.getByRole("status").filter({ hasText: "was restored from this browser" })).toBeVisible();
  await page.locator('[data-file="crm/crm.yml"]').click();
  await expect(editor(page)).toHaveValue(/# a note only this reader wrote/);

  await page.getByRole("button", { name: "Reset to the example" }).click();
  await page.getByRole("button", { name: "Keep them" }).click();
  await expect(editor(page)).toHaveValue(/# a note only this reader wrote/);
  await page.getByRole("button", { name: "Reset to the example" }).click();
  await page.getByRole("button", { name: "Discard edits" }).click();
  await expect(editor(page)).not.toHaveValue(/# a note only this reader wrote/);
  await expect(page.locator(".save-status")).toHaveText("The example as shipped");
  await page.reload();
  await expect(page.getByText("was restored from this browser")).toHaveCount(0);
  watch.check();
});

test("reverting one file undoes only that file", async ({ page }) => {
  await open(page, "play");
  await editor(page).press("Control+Home");
  await page.keyboard.type("# edited\n");
  await expect(page.locator(".editor-bar .badge.edited")).toBeVisible();
  await page.getByRole("button", { name: "Revert this file" }).click();
  await expect(page.locator(".editor-bar .badge.edited")).toHaveCount(0);
  await expect(editor(page)).not.toHaveValue(/# edited/);
  await expect(page.locator(".save-status")).toHaveText("The example as shipped");
});

test("a damaged draft is set aside with a clear message, and the page still works", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await page.evaluate(() => localStorage.setItem("swaplab.draft.v1.tutorial", '{"version": 1, "workspace": 7}'));
  await page.reload();
  const alert = page.getByRole("alert").filter({ hasText: "could not be opened" });
  await expect(alert).toContainText("damaged at 1:29");
  await expect(alert).toContainText("swaplab.draft.v1.tutorial.damaged");
  expect(await page.evaluate(() => localStorage.getItem("swaplab.draft.v1.tutorial.damaged"))).toContain('"workspace": 7');
  await expect(editor(page)).toHaveValue(/mcp\/hubspot_crm:list_open_tickets/);
  await alert.getByRole("button", { name: "Dismiss" }).click();
  await expect(alert).toHaveCount(0);
  watch.check();
});

test("an unknown example falls back to the tutorial and says so", async ({ page }) => {
  await open(page, "play?example=nope");
  await expect(page.getByRole("alert")).toContainText("There is no example called “nope”");
  await expect(page.locator(".example-title")).toContainText("The tutorial's swap");
});

test("the editor is no keyboard trap: Escape then Tab moves on", async ({ page }) => {
  await open(page, "play");
  await editor(page).focus();
  await page.keyboard.press("Escape");
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe("TEXTAREA");
});

test("a link with ?reset-draft sets drafts aside, and the playground offers them back", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await appendToCrmSeed(page, "# work that must survive a reset link");

  await open(page, "play?reset-draft");
  await expect(page).toHaveURL(/\/play$/);
  await expect(page.locator(".save-status")).toHaveText("The example as shipped");
  const offer = page.getByRole("status").filter({ hasText: "was set aside" });
  await expect(offer).toBeVisible();

  await offer.getByRole("button", { name: "Restore it" }).click();
  await expect(offer).toHaveCount(0);
  await expect(editor(page)).toHaveValue(/# work that must survive a reset link/);
  await expect(page.locator(".save-status")).toHaveText("Draft saved in this browser");
  expect(await page.evaluate(() => localStorage.getItem("swaplab.draft.v1.tutorial.set-aside"))).toBeNull();

  await page.reload();
  await expect(page.getByText("was set aside")).toHaveCount(0);
  await expect(page.getByText("was restored from this browser")).toBeVisible();
  watch.check();
});
