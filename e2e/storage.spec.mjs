// Nothing a reader types is lost: two tabs editing the same draft, a full storage, a
// link pasted over edits not yet saved, and a crash in the middle of typing. Each test
// reads localStorage itself, so "kept" means stored, not just shown.
import { test, expect } from "@playwright/test";
import { open, shot, watchErrors } from "./helpers.mjs";

const editor = (page) => page.getByRole("textbox", { name: /^Contents of / });
const DRAFT = "swaplab.draft.v1.tutorial";
const ASIDE = `${DRAFT}.set-aside`;
const stored = (page, key) => page.evaluate((k) => localStorage.getItem(k), key);

/** Types `text` at the end of the open file. */
async function typeAtEnd(page, text) {
  const area = editor(page);
  await area.focus();
  await area.press("Control+End");
  await page.keyboard.type(text);
}

test("two tabs editing one draft: the later save is held back, and either choice keeps both", async ({ context }, testInfo) => {
  const first = await context.newPage();
  const second = await context.newPage();
  const watchFirst = watchErrors(first);
  const watchSecond = watchErrors(second);
  await open(first, "play");
  await open(second, "play");

  await typeAtEnd(first, "\n# alpha from the first tab\n");
  await expect(first.locator(".save-status")).toHaveText("Draft saved in this browser");
  expect(await stored(first, DRAFT)).toContain("alpha from the first tab");

  // The second tab hears of it at once, before it types anything.
  const warnSecond = second.locator(".notice.conflict");
  await expect(warnSecond).toBeVisible();
  await typeAtEnd(second, "\n# beta from the second tab\n");
  await expect(second.locator(".save-status")).toHaveText("Not saved: another tab changed this draft");
  // Its save was held back: the first tab's work is still what is stored.
  let draft = await stored(second, DRAFT);
  expect(draft).toContain("alpha from the first tab");
  expect(draft).not.toContain("beta from the second tab");
  await expect(second.getByRole("link", { name: "Download draft" })).toHaveAttribute("href", /beta%20from%20the%20second%20tab/);
  await shot(second, testInfo, "storage-two-tabs-conflict");

  // The second tab keeps its version; the first tab's goes aside.
  await warnSecond.getByRole("button", { name: "Keep this tab's version" }).click();
  await expect(warnSecond).toBeHidden();
  await expect(second.locator(".save-status")).toHaveText("Draft saved in this browser");
  draft = await stored(second, DRAFT);
  expect(draft).toContain("beta from the second tab");
  expect(draft).not.toContain("alpha from the first tab");
  expect(await stored(second, ASIDE)).toContain("alpha from the first tab");

  // The first tab now hears of the second's save, and takes that version.
  const warnFirst = first.locator(".notice.conflict");
  await expect(warnFirst).toBeVisible();
  await warnFirst.getByRole("button", { name: "Show the other tab's version" }).click();
  await expect(editor(first)).toHaveValue(/beta from the second tab/);
  await expect(editor(first)).not.toHaveValue(/alpha from the first tab/);
  expect(await stored(first, ASIDE)).toContain("alpha from the first tab");

  // Its own version is one click away.
  await first.locator(".notice", { hasText: "kept aside" }).getByRole("button", { name: "Restore it" }).first().click();
  await expect(editor(first)).toHaveValue(/alpha from the first tab/);
  expect(await stored(first, ASIDE)).toContain("beta from the second tab");
  watchFirst.check();
  watchSecond.check();
});

test("a full storage: the edits stay on screen, can be downloaded, and save once there is room", async ({ page }, testInfo) => {
  await open(page, "play");
  // Fill the site's storage with other data until the browser refuses more.
  // Big pieces first, then ever smaller ones, so not even a short draft fits.
  const filled = await page.evaluate(() => {
    let i = 0;
    let error = "none";
    for (const size of [256 * 1024, 16 * 1024, 1024, 64, 1]) {
      try {
        for (; i < 100000; i++) localStorage.setItem(`filler.${i}`, "x".repeat(size));
      } catch (e) {
        error = e.name;
      }
    }
    return { i, name: error };
  });
  expect(filled.name).toBe("QuotaExceededError");

  await typeAtEnd(page, "\n# written while the storage was full\n");
  const status = page.locator(".save-status");
  await expect(status).toHaveText(/^Not saved: the browser's storage for this site is full/);
  await expect(editor(page)).toHaveValue(/written while the storage was full/);
  const download = page.getByRole("link", { name: "Download draft" });
  await expect(download).toHaveAttribute("download", "swaplab-draft-tutorial.json");
  const href = await download.getAttribute("href");
  const json = JSON.parse(decodeURIComponent(href.replace(/^data:application\/json;charset=utf-8,/, "")));
  expect(json[DRAFT]).toContain("written while the storage was full");
  await shot(page, testInfo, "storage-full");

  // Room again: the next edit saves everything typed so far.
  await page.evaluate((n) => {
    for (let i = 0; i < n; i++) localStorage.removeItem(`filler.${i}`);
  }, filled.i);
  await typeAtEnd(page, "# and after room was made\n");
  await expect(status).toHaveText("Draft saved in this browser");
  await page.reload();
  await expect(editor(page)).toHaveValue(/written while the storage was full\n# and after room was made/);
});

test("a link pasted over edits not yet saved: the edits are saved first, and the link asks", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await typeAtEnd(page, "\n# the linked version\n");
  await page.getByRole("button", { name: "Share", exact: true }).click();
  const link = await page.getByRole("textbox", { name: "Link to this workspace" }).inputValue();
  await page.keyboard.press("Escape");
  await expect(page.locator(".save-status")).toHaveText("Draft saved in this browser");
  // Share also put the link in the address bar; a reader pasting it later has moved on
  // from it (the next save clears it too, but that may come before or after Share).
  await page.evaluate(() => history.replaceState(null, "", location.pathname));

  // Typing, then at once a link in the address bar: only the fragment changes, so the
  // browser loads no page — the playground must notice, save, and ask.
  await typeAtEnd(page, "# typed a moment before the link\n");
  await expect(page.locator(".save-status")).toHaveText("Unsaved changes…");
  await page.goto(link);
  const ask = page.locator(".notice", { hasText: "This link holds a different version" });
  await expect(ask).toBeVisible();
  await expect(editor(page)).toHaveValue(/typed a moment before the link/);
  expect(await stored(page, DRAFT)).toContain("typed a moment before the link");

  // The same through a page load (a new URL, not just a fragment): pagehide saves.
  await typeAtEnd(page, "# typed before leaving\n");
  await page.goto(link.replace("/play#", "/play?example=tutorial#"));
  await expect(page.locator(".notice", { hasText: "This link holds a different version" })).toBeVisible();
  await expect(editor(page)).toHaveValue(/typed before leaving/);
  watch.check();
});

test("leaving for another page of the app before the typing pause saves the edits first", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await page.locator('[data-file="after/agent.yml"]').click();
  await typeAtEnd(page, "\n# typed just before leaving\n");
  // At once, well inside the 400 ms the playground waits before saving: the header's
  // link is followed inside the app, so no pagehide comes to save them.
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Learn" }).click();
  await expect(page).toHaveURL(/\/learn$/);
  expect(await stored(page, DRAFT)).toContain("typed just before leaving");
  await page.goBack();
  await expect(page).toHaveURL(/\/play$/);
  await page.locator('[data-file="after/agent.yml"]').click();
  await expect(editor(page)).toHaveValue(/typed just before leaving/);
  watch.check();
});

test("a crash while typing shows the banner, saves the latest edits, and offers them as a file", async ({ page }, testInfo) => {
  await open(page, "play");
  // The debugging trigger: only someone at the console (or this test) can set it.
  await page.evaluate(() => localStorage.setItem("swaplab.debug.v1", "crash-on-edit"));
  const crashes = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") crashes.push(msg.text());
  });

  // One input event (a paste, say), so the crash comes after it, in the rerun 120 ms
  // later — well before the save that waits 400 ms for typing to pause.
  const area = editor(page);
  await area.focus();
  await area.press("Control+End");
  await page.keyboard.insertText("\n# typed just before the crash\n");
  const banner = page.locator("#crash-banner");
  await expect(banner).toBeVisible();
  await expect(banner).toBeFocused();
  await expect(banner).toContainText("Your latest edits were saved just now.");
  expect(crashes.join("\n")).toContain("a crash requested with swaplab.debug.v1");
  // The keystrokes were still waiting for the typing pause; the banner saved them.
  expect(await stored(page, DRAFT)).toContain("typed just before the crash");
  const href = await banner.getByRole("link", { name: "Download drafts" }).getAttribute("href");
  expect(decodeURIComponent(href)).toContain("typed just before the crash");
  // The frozen app takes no more input, and its save timer, which still fires after the
  // crash, writes nothing over what the banner saved.
  await expect(page.locator("#app")).toHaveAttribute("inert", "");
  await page.waitForTimeout(600);
  await expect(page.locator(".notice.conflict")).toHaveCount(0);
  expect(await stored(page, DRAFT)).toContain("typed just before the crash");
  await shot(page, testInfo, "storage-crash-banner");

  await page.evaluate(() => localStorage.removeItem("swaplab.debug.v1"));
  await banner.getByRole("link", { name: "Reload" }).click();
  await expect(editor(page)).toHaveValue(/typed just before the crash/);
});

test("an exercise open in two tabs: the later save is held back, and either version can be swapped back in", async ({ context }) => {
  const first = await context.newPage();
  const second = await context.newPage();
  const watchFirst = watchErrors(first);
  await open(first, "x/3");
  await open(second, "x/3");
  const id = await first.locator("[data-exercise]").getAttribute("data-exercise");
  const key = `swaplab.exercise.v1.${id}`;

  await typeAtEnd(first, "\n# work from the first tab\n");
  await expect.poll(() => stored(first, key)).toContain("work from the first tab");
  const warnSecond = second.locator(".notice.conflict");
  await expect(warnSecond).toBeVisible();
  await typeAtEnd(second, "\n# work from the second tab\n");
  await second.waitForTimeout(600);
  expect(await stored(second, key)).not.toContain("work from the second tab");

  await warnSecond.getByRole("button", { name: "Keep this tab's work" }).click();
  await expect.poll(() => stored(second, key)).toContain("work from the second tab");
  expect(await stored(second, `${key}.set-aside`)).toContain("work from the first tab");

  const warnFirst = first.locator(".notice.conflict");
  await expect(warnFirst).toBeVisible();
  await warnFirst.getByRole("button", { name: "Use the other tab's work" }).click();
  await expect(editor(first)).toHaveValue(/work from the second tab/);
  await first.locator(".notice.set-aside").getByRole("button", { name: "Swap it in" }).click();
  await expect(editor(first)).toHaveValue(/work from the first tab/);
  watchFirst.check();
});

test("leaving an exercise for the next one before the typing pause saves the work first", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "x/3");
  await expect(page).toHaveURL(/\/exercises\/.+$/);
  const id = await page.locator("[data-exercise]").getAttribute("data-exercise");
  const key = `swaplab.exercise.v1.${id}`;
  await typeAtEnd(page, "\n# typed just before moving on\n");
  // At once, well inside the 400 ms the exercise waits before saving: the link is
  // followed inside the app, so no pagehide comes to save the work.
  await page.getByRole("navigation", { name: "Exercise navigation" }).getByRole("link", { name: /Next/ }).click();
  await expect(page).not.toHaveURL(new RegExp(`/exercises/${id}$`));
  expect(await stored(page, key)).toContain("typed just before moving on");
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/exercises/${id}$`));
  await expect(editor(page)).toHaveValue(/typed just before moving on/);
  watch.check();
});
