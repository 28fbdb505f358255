// The editor as a reader uses it: the highlighted copy behind the textarea follows typing
// and scrolling, Tab and Shift-Tab indent and outdent, Escape then Tab leaves, and a
// problem listed under the editor puts the caret on its spot.
import { test, expect } from "@playwright/test";
import { open, shot, watchErrors } from "./helpers.mjs";

const editor = (page) => page.getByRole("textbox", { name: /^Contents of / });
const view = (page) => page.locator(".editor .code-view");

/** Opens a file of the tutorial in the editor. */
async function openFile(page, file) {
  await page.locator(`[data-file="${file}"]`).click();
  await expect(editor(page)).toHaveAccessibleName(`Contents of ${file}`);
}

/** Puts the selection on `start..end` (UTF-16 offsets, as the textarea counts). */
async function select(page, start, end = start) {
  await editor(page).evaluate((el, [a, b]) => el.setSelectionRange(a, b), [start, end]);
}

const selection = (page) => editor(page).evaluate((el) => [el.selectionStart, el.selectionEnd]);

/** The highlighted copy's text is the textarea's, plus the newline that keeps an empty
 *  last line as tall as the textarea's. */
async function expectSameText(page) {
  const value = await editor(page).inputValue();
  await expect.poll(() => view(page).evaluate((el) => el.textContent)).toBe(`${value}\n`);
}

test("the highlighted copy has the textarea's metrics and follows typing", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await openFile(page, "after/skills/log_interaction/skill.md");
  const area = editor(page);
  // Frontmatter keys, the ordered block and a reference are coloured.
  await expect(view(page).locator(".key").first()).toHaveText("name");
  await expect(view(page).locator(".directive", { hasText: ":::ordered_block" })).toHaveCount(1);
  await expect(view(page).locator(".directive", { hasText: "@skill.identify_customer" })).toHaveCount(1);
  await expectSameText(page);

  // Same box, font and spacing: then every glyph lands where the textarea's would.
  const metrics = (el) => {
    const s = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    return [s.fontFamily, s.fontSize, s.lineHeight, s.letterSpacing, s.tabSize, s.whiteSpace,
      s.paddingTop, s.paddingLeft, s.fontWeight, box.left, box.top];
  };
  expect(await view(page).evaluate(metrics)).toEqual(await area.evaluate(metrics));
  // The textarea's own text is invisible, its caret is not.
  const look = await area.evaluate((el) => {
    const s = getComputedStyle(el);
    return [s.color, s.caretColor];
  });
  expect(look[0]).toBe("rgba(0, 0, 0, 0)");
  expect(look[1]).not.toBe("rgba(0, 0, 0, 0)");

  // Type a new key into the frontmatter: it is coloured as a key at once.
  const value = await area.inputValue();
  await area.focus();
  await select(page, value.indexOf("import_tools:"));
  await page.keyboard.type("version: 2\n");
  await expectSameText(page);
  await expect(view(page).locator(".key", { hasText: /^version$/ })).toHaveCount(1);
  await expect(view(page).locator(".number", { hasText: /^2$/ })).toHaveCount(1);
  // Type an unclosed quote: the rest of its line turns into a string, nothing shifts.
  await page.keyboard.type('note: "half');
  await expectSameText(page);
  // (A diagnostic's underline may split the string into several spans.)
  await expect.poll(() => view(page).locator(".string").allTextContents()).toContainEqual(expect.stringContaining("half"));

  // Look at this one: the textarea's text in translucent red over the coloured copy.
  // Aligned, the red glyphs sit exactly on the coloured ones.
  await area.evaluate((el) => {
    el.style.setProperty("-webkit-text-fill-color", "rgb(255 0 0 / 0.55)");
  });
  await shot(page, testInfo, "editor-overlay-check");
  await area.evaluate((el) => el.style.removeProperty("-webkit-text-fill-color"));
  await shot(page, testInfo, "editor-typed-light");
  watch.check();
});

test("scrolling moves the copy and the gutter with the textarea, even in a long file", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await openFile(page, "server/scripts/mcp_crm_server.py");
  const area = editor(page);
  // A long file: 40 copies of the server, about 3,300 lines.
  const long = (await area.inputValue()).repeat(40);
  await area.evaluate((el, text) => {
    el.value = text;
    el.dispatchEvent(new InputEvent("input", { bubbles: true }));
  }, long);
  await expect(area).toHaveValue(long);
  /** Scrolls the textarea down by a fraction of its height and checks that the copy and the gutter follow, and that the
   *  copy draws the right lines around the visible ones, coloured. */
  async function scrollTo(fraction) {
    await area.evaluate((el, f) => { el.scrollTop = el.scrollHeight * f; el.scrollLeft = el.scrollWidth; }, fraction);
    await expect
      .poll(() => page.evaluate(() => {
        const a = document.querySelector(".editor textarea.code");
        const v = document.querySelector(".code-view");
        const g = document.querySelector(".editor .gutter");
        return [v.scrollTop - a.scrollTop, v.scrollLeft - a.scrollLeft, g.scrollTop - a.scrollTop];
      }))
      .toEqual([0, 0, 0]);
    const drawn = await page.evaluate(() => {
      const lines = document.querySelector(".code-view .lines");
      const a = document.querySelector(".editor textarea.code").getBoundingClientRect();
      const visible = [...lines.querySelectorAll(".keyword, .string, .function")]
        .filter((k) => { const r = k.getBoundingClientRect(); return r.top >= a.top && r.bottom <= a.bottom; });
      return { first: Number(lines.dataset.first), text: lines.textContent, coloured: visible.length };
    });
    const all = long.split("\n");
    const firstVisible = Math.floor((await area.evaluate((el) => el.scrollTop)) / 20);
    expect(drawn.first - 1).toBeLessThanOrEqual(firstVisible);
    expect(drawn.text.startsWith(all.slice(drawn.first - 1, firstVisible + 40).join("\n"))).toBe(true);
    expect(drawn.coloured).toBeGreaterThan(5);
  }
  await scrollTo(0.5);
  await scrollTo(1);
  await scrollTo(0);
  await scrollTo(0.5);
  await area.evaluate((el) => el.style.setProperty("-webkit-text-fill-color", "rgb(255 0 0 / 0.55)"));
  await shot(page, testInfo, "editor-scrolled-check");
  await scrollTo(1);
  await shot(page, testInfo, "editor-scrolled-end-check");
  watch.check();
});

test("Tab indents, Shift-Tab outdents, Enter keeps the indentation, undo undoes", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await openFile(page, "after/agent.yml");
  const area = editor(page);
  const original = await area.inputValue();
  await area.click();

  // A caret: two spaces there.
  const at = original.indexOf("orchestrator:");
  await select(page, at);
  await page.keyboard.press("Tab");
  await expect(area).toHaveValue(original.slice(0, at) + "  " + original.slice(at));
  expect(await selection(page)).toEqual([at + 2, at + 2]);
  await page.keyboard.press("Shift+Tab");
  await expect(area).toHaveValue(original);
  expect(await selection(page)).toEqual([at, at]);

  // A selection over three lines: each one moves, and stays selected.
  const start = original.indexOf("  id: support-desk");
  const end = original.indexOf("  description:");
  await select(page, start + 4, end - 1);
  await page.keyboard.press("Tab");
  const lines = original.slice(start, end).split("\n").slice(0, -1);
  const indented = lines.map((line) => `  ${line}`).join("\n");
  await expect(area).toHaveValue(original.slice(0, start) + indented + original.slice(end - 1));
  expect(await selection(page)).toEqual([start + 6, end - 1 + 2 * lines.length]);
  await page.keyboard.press("Shift+Tab");
  await page.keyboard.press("Shift+Tab");
  const outdented = lines.map((line) => line.replace(/^ {2}/, "")).join("\n");
  await expect(area).toHaveValue(original.slice(0, start) + outdented + original.slice(end - 1));

  // Undo walks back through both edits, as typed text would.
  await page.keyboard.press("Control+z");
  await page.keyboard.press("Control+z");
  await expect(area).toHaveValue(original.slice(0, start) + indented + original.slice(end - 1));
  await page.keyboard.press("Control+z");
  await expect(area).toHaveValue(original);

  // Enter keeps the indentation of the line it breaks.
  const name = original.indexOf("  name: Support desk") + "  name: Support desk".length;
  await select(page, name);
  await page.keyboard.press("Enter");
  await page.keyboard.type("owner: me");
  await expect(area).toHaveValue(`${original.slice(0, name)}\n  owner: me${original.slice(name)}`);
  watch.check();
});

test("Escape then Tab leaves the editor; without Escape, Tab stays to indent", async ({ page }) => {
  await open(page, "play");
  const area = editor(page);
  await area.click();
  await page.keyboard.press("Tab");
  await expect(area).toBeFocused();
  await page.keyboard.press("Escape");
  await page.keyboard.press("Tab");
  await expect(area).not.toBeFocused();
  expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe("TEXTAREA");
  // Back in, Escape then Shift+Tab leaves the other way.
  await area.click();
  await page.keyboard.press("Escape");
  await page.keyboard.press("Shift+Tab");
  await expect(area).not.toBeFocused();
  // The way out is written under the editor and read out with it.
  await expect(area).toHaveAccessibleDescription(/press Esc, then Tab/);
});

test("a problem under the editor puts the caret on its spot", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await openFile(page, "after/skills/log_interaction/responses.yml");
  const area = editor(page);
  const value = await area.inputValue();
  // A YAML syntax error: an unclosed flow sequence.
  await area.focus();
  await select(page, value.indexOf("utter_note_saved:"));
  await page.keyboard.type("broken: [a, b\n  ");
  const problems = page.getByRole("list", { name: "Problems in this file" });
  // The editor pane passes the open file's diagnostics to the editor: a broken file
  // lists its problems.
  await expect(problems).toBeVisible();

  const typed = await area.inputValue();
  // Read the problem only once the analysis has caught up with the last keystroke: an
  // earlier one may name a spot in text that no longer exists.
  await expect(page.locator(".results.stale")).toHaveCount(0);
  const first = problems.getByRole("button").first();
  const [, line, column] = (await first.textContent()).match(/:(\d+):(\d+): /).map(Number);
  const underline = page.locator(".code-view .diag.error").first();
  await expect(underline).toBeVisible();
  await expect(page.locator(".editor .gutter .mark.error")).toHaveText(String(line));
  // The underline lies under the textarea: hovering it puts its message on the textarea.
  const message = await underline.getAttribute("title");
  expect((await first.textContent()).endsWith(`: ${message}`)).toBe(true);
  const box = await underline.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await expect(area).toHaveAttribute("title", message);
  await page.mouse.move(box.x + box.width / 2, box.y + 200);
  await expect(area).not.toHaveAttribute("title");
  await shot(page, testInfo, "editor-diagnostic-light");
  await first.click();
  await expect(area).toBeFocused();
  const [start, end] = await selection(page);
  expect(start).toBe(end);
  const before = typed.slice(0, start).split("\n");
  expect([before.length, [...before.at(-1)].length + 1]).toEqual([line, column]);
  // Nothing the reader typed was lost, and typing goes in at the caret.
  await expect(area).toHaveValue(typed);
  watch.check();
});

test("the editor in both themes", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [file, name] of [
      ["after/skills/log_interaction/skill.md", "skill"],
      ["server/scripts/mcp_crm_server.py", "python"],
      ["after/skills/log_interaction/responses.yml", "yaml"],
    ]) {
      await openFile(page, file);
      await expectSameText(page);
      // A selection stays visible over the coloured text.
      await editor(page).focus();
      await select(page, 4, 60);
      await editor(page).evaluate((el) => { el.scrollTop = 0; el.scrollLeft = 0; });
      await shot(page, testInfo, `editor-${name}-${scheme}`);
    }
  }
  watch.check();
});
