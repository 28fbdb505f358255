// Permalinks as a reader uses them: share an edited workspace, open the link in a fresh
// browser, reload; and links that are broken or hostile.
import { test, expect } from "@playwright/test";
import zlib from "node:zlib";
import { open, shot, watchErrors } from "./helpers.mjs";

const editor = (page) => page.getByRole("textbox", { name: /^Contents of / });

test("a shared link opens the same files and verdicts in a fresh browser", async ({ page, browser, baseURL }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await page.locator('[data-file="after/skills/log_interaction/skill.md"]').click();
  const area = editor(page);
  const value = await area.inputValue();
  const at = value.indexOf("add_timeline_note:", value.indexOf("tool_constraints:"));
  await area.focus();
  await area.evaluate((el, [s, e]) => el.setSelectionRange(s, e), [at, at + "add_timeline_note:".length]);
  await page.keyboard.type("list_open_tickets:");
  await expect(page.locator('[data-check="constraints:log_interaction"]').or(page.getByRole("tab", { name: /^Review/ }))).toBeVisible();
  await page.getByRole("button", { name: "Share", exact: true }).click();
  const link = await page.getByRole("textbox", { name: "Link to this workspace" }).inputValue();
  expect(link).toContain("#v1e");
  expect(link.length).toBeLessThan(2000);
  await expect(page.locator(".link-length")).toHaveText(`${link.length} characters`);
  const edited = await area.inputValue();

  const fresh = await browser.newContext({ baseURL });
  const other = await fresh.newPage();
  const otherWatch = watchErrors(other);
  await other.goto(link);
  await expect(other.locator("header nav")).toBeVisible();
  await expect(other.getByRole("textbox", { name: /^Contents of / })).toHaveValue(edited);
  // Shown, not yet stored: the status must not claim a saved draft.
  await expect(other.locator(".save-status")).toHaveText("From the link; your first edit keeps it in this browser");
  expect(await other.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("swaplab.draft")))).toEqual([]);
  await other.getByRole("tab", { name: /^Review/ }).click();
  await expect(other.locator('[data-check="constraints:log_interaction"]')).toContainText("moved from add_timeline_note to list_open_tickets");
  await expect(other.getByRole("tab", { name: /^Proof/ })).toContainText("✓");
  await shot(other, testInfo, "share-opened");
  otherWatch.check();
  await fresh.close();

  // Reload keeps the edits (the draft), not just the link.
  await expect(page.locator(".save-status")).toHaveText("Draft saved in this browser");
  await page.reload();
  await expect(editor(page)).toHaveValue(edited);
  watch.check();
});

const base64url = (buffer) => buffer.toString("base64").replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");

for (const [name, fragment] of [
  ["garbage", "v1e!!!not-a-link***"],
  ["an unknown version", "v9f" + "A".repeat(40)],
  ["an oversized payload", "v1f" + "A".repeat(70_000)],
  ["a deflate bomb", "v1f" + base64url(zlib.deflateRawSync(Buffer.alloc(30 * 1024 * 1024)))],
  ["a zlib bomb", "v1f" + base64url(zlib.deflateSync(Buffer.alloc(30 * 1024 * 1024)))],
]) {
  test(`a link with ${name} shows a clear banner and the example stays usable`, async ({ page }) => {
    const watch = watchErrors(page);
    let dialogs = 0;
    page.on("dialog", (d) => { dialogs += 1; d.dismiss(); });
    await page.goto(`play#${fragment}`);
    await expect(page.locator("header nav")).toBeVisible();
    await expect(page.getByRole("status").or(page.locator(".notice")).filter({ hasText: "The link could not be opened" }).first()).toBeVisible();
    await expect(page.getByRole("tab", { name: /^Proof/ })).toContainText("✓");
    await expect(editor(page)).toHaveAccessibleName("Contents of after/skills/check_tickets/skill.md");
    expect(dialogs).toBe(0);
    watch.check();
  });
}

test("a link whose files carry script, onerror and javascript: links runs nothing", async ({ page }) => {
  const watch = watchErrors(page);
  let dialogs = 0;
  page.on("dialog", (d) => { dialogs += 1; d.dismiss(); });
  await open(page, "play");
  await page.locator('[data-file="after/skills/check_tickets/skill.md"]').click();
  const area = editor(page);
  await area.focus();
  await area.press("Control+End");
  await page.keyboard.type('\n<script>alert(1)</script> <img src=x onerror="alert(2)"> [x](javascript:alert(3)) [y](JaVaScRiPt:alert(4))\n');
  await page.getByRole("button", { name: "Share", exact: true }).click();
  const link = await page.getByRole("textbox", { name: "Link to this workspace" }).inputValue();
  await page.goto("about:blank");
  await page.goto(link);
  await expect(page.locator("header nav")).toBeVisible();
  for (const name of ["Proof", "Review", "Diff", "Conversation", "Trace"]) {
    await page.getByRole("tab", { name: new RegExp(`^${name}`) }).click();
  }
  expect(dialogs).toBe(0);
  expect(await page.locator("script:not([src]):not([type])").count()).toBeLessThanOrEqual(1);
  expect(await page.locator("[onerror]").count()).toBe(0);
  expect(await page.locator('a[href^="javascript" i]').count()).toBe(0);
  watch.check();
});

test("a link over a different draft asks first, and either answer keeps the draft", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  const area = editor(page);
  await area.focus();
  await area.press("Control+End");
  await page.keyboard.type("\nfirst edit\n");
  await page.getByRole("button", { name: "Share", exact: true }).click();
  const link = await page.getByRole("textbox", { name: "Link to this workspace" }).inputValue();
  await page.keyboard.press("Escape");
  await area.focus();
  await area.press("Control+End");
  await page.keyboard.type("second edit\n");
  await expect(page.locator(".save-status")).toHaveText("Draft saved in this browser");
  const draft = await area.inputValue();

  await page.goto("about:blank");
  await page.goto(link);
  const ask = page.locator(".notice", { hasText: "This link holds a different version" });
  await expect(ask).toBeVisible();
  await expect(editor(page)).toHaveValue(draft);
  await ask.getByRole("button", { name: "Keep my draft" }).click();
  await expect(ask).toBeHidden();
  await expect(editor(page)).toHaveValue(draft);

  await page.goto("about:blank");
  await page.goto(link);
  await page.locator(".notice", { hasText: "This link holds a different version" }).getByRole("button", { name: "Open the link" }).click();
  await expect(editor(page)).not.toHaveValue(draft);
  await expect(editor(page)).toHaveValue(/first edit\n$/);
  await page.locator(".notice", { hasText: "Your draft is kept aside" }).getByRole("button", { name: "Restore it" }).click();
  await expect(editor(page)).toHaveValue(draft);
  watch.check();
});
