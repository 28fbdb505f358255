// Keyboard shortcuts as the help overlay lists them: help, go to file, next pane, rerun.
import { test, expect } from "@playwright/test";
import { open, shot, watchErrors } from "./helpers.mjs";

test("the shortcuts open help, go to a file and move between panes", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await page.locator("h1").click();
  await page.keyboard.press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help).toBeVisible();
  await expect(help).toContainText("Ctrl+Shift+S");
  await expect(help.getByRole("button", { name: "Close" })).toBeFocused();
  await shot(page, testInfo, "shortcuts-help");
  await page.keyboard.press("Escape");
  await expect(help).toBeHidden();

  await page.keyboard.press("Control+p");
  const goTo = page.getByRole("dialog", { name: "Go to a file" });
  await expect(goTo.getByRole("combobox", { name: "File name" }).or(goTo.getByRole("textbox", { name: "File name" }))).toBeFocused();
  await page.keyboard.type("crm.yml");
  await page.keyboard.press("Enter");
  await expect(goTo).toBeHidden();
  await expect(page.getByRole("textbox", { name: /^Contents of / })).toHaveAccessibleName("Contents of crm/crm.yml");

  await page.locator("h1").click();
  await expect(page.getByRole("tab", { name: /^Proof/ })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Alt+ArrowRight");
  await expect(page.getByRole("tab", { name: /^Review/ })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Alt+ArrowLeft");
  await expect(page.getByRole("tab", { name: /^Proof/ })).toHaveAttribute("aria-selected", "true");

  await page.keyboard.press("Control+Shift+S");
  await expect(page.getByRole("textbox", { name: "Link to this workspace" })).toHaveValue(/#v1e/);
  watch.check();
});

test("a dialog keeps the keyboard inside it and gives the focus back when it closes", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  const editor = page.getByRole("textbox", { name: /^Contents of / });
  await editor.focus();
  await page.keyboard.press("Control+p");
  const goTo = page.getByRole("dialog", { name: "Go to a file" });
  const input = goTo.getByRole("combobox", { name: "File name" }).or(goTo.getByRole("textbox", { name: "File name" }));
  await expect(input).toBeFocused();
  // Tab and Shift+Tab go round the dialog's own controls, never to the page behind it.
  await page.keyboard.press("Tab");
  await expect(goTo.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(input).toBeFocused();
  await page.keyboard.press("Shift+Tab");
  await expect(goTo.getByRole("button", { name: "Cancel" })).toBeFocused();
  // Escape closes it, and the reader is back in the editor they left.
  await page.keyboard.press("Escape");
  await expect(goTo).toBeHidden();
  await expect(editor).toBeFocused();

  const opener = page.getByRole("button", { name: "Shortcuts (?)" });
  await opener.click();
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help.getByRole("button", { name: "Close" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(help.getByRole("button", { name: "Close" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(help).toBeHidden();
  await expect(opener).toBeFocused();
  watch.check();
});

test("a shortcut acts on what is on screen: Ctrl+Shift+S right after typing shares the edits", async ({ page, browser, baseURL }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await page.locator('[data-file="after/skills/log_interaction/skill.md"]').click();
  const area = page.getByRole("textbox", { name: /^Contents of / });
  await area.focus();
  await area.press("Control+End");
  await page.keyboard.type("\nA line typed before the shortcut.\n");
  const edited = await area.inputValue();

  // At once, before the typing pause saves anything: the shortcut must act on what is
  // on screen, not on what the page showed when its listener was added.
  await page.keyboard.press("Control+Shift+S");
  const link = await page.getByRole("textbox", { name: "Link to this workspace" }).inputValue();

  const fresh = await browser.newContext({ baseURL });
  const other = await fresh.newPage();
  await other.goto(link);
  await other.locator('[data-file="after/skills/log_interaction/skill.md"]').click();
  await expect(other.getByRole("textbox", { name: /^Contents of / })).toHaveValue(edited);
  await fresh.close();
  watch.check();
});
