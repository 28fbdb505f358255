// The reading pages before any wasm: every chapter is a real page, readable with
// JavaScript off and with the wasm held back, its links plain links; and when the app
// does start, it takes the page over without a flash of "Loading…" or a jump.
import { test, expect } from "@playwright/test";
import { APP_STARTED, holdWasm, shot, watchErrors } from "./helpers.mjs";

const chapter = { path: "learn/the-swap", title: "What the swap changes", next: "What survives the swap" };

test("with JavaScript off, a chapter shows its full text, headings, anchors and widgets, and its links work", async ({ browser, baseURL }, testInfo) => {
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(chapter.path);
  await expect(page).toHaveTitle(`${chapter.title} — Swap Lab`);
  expect(await page.locator('meta[property="og:title"]').getAttribute("content")).toBe(chapter.title);
  const description = await page.locator('meta[name="description"]').getAttribute("content");
  expect(description.length).toBeGreaterThan(40);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(chapter.title);
  const article = page.locator("article");
  expect(await article.locator("h2").count()).toBeGreaterThan(1);
  expect(await article.locator("p").count()).toBeGreaterThan(5);
  await expect(article.locator("h2 .heading-anchor").first()).toHaveAttribute("href", /learn\/the-swap#/);
  // Widgets come with their results, as the app renders them: the diff's lines, the
  // server's tools and the proof's terminal; nothing static stands in for them.
  await expect(article.locator("figure.widget-static")).toHaveCount(0);
  await expect(article.locator("figure.widget")).toHaveCount(6);
  await expect(article.locator("figure.widget-proof pre.terminal")).toContainText("The transport changed. The instructions did not.");
  await expect(article.locator("figure.widget-proof .verdict")).toContainText("All 18 checks pass");
  expect(await article.locator("figure.widget-diff").first().locator(".widget-body tr, .widget-body .diff-line").count()).toBeGreaterThan(3);
  await expect(article.locator("figure.widget-tools").first()).toContainText("add_timeline_note");
  await expect(article.locator("figure.widget .widget-open").first()).toHaveAttribute("href", /^play\?example=tutorial/);
  await expect(page.locator(".loading")).toHaveCount(0);
  await shot(page, testInfo, "prerendered-chapter-no-js");

  // Plain links: the next chapter, then the chapter list from the header.
  await page.getByRole("navigation", { name: "Chapter navigation" }).getByRole("link", { name: /Next/ }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(chapter.next);
  // A widget that runs a conversation waits for the app: its button says so.
  await page.goto("learn/the-agent");
  const run = page.locator("figure.widget-conversation .widget-run");
  await expect(run).toBeDisabled();
  await expect(run).toHaveAttribute("title", /once Swap Lab's script has loaded/);
  await page.locator("header").getByRole("link", { name: "Learn" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Chapters");
  await expect(page.locator(".chapter-list li")).toHaveCount(8);
  await context.close();
});

test("with both wasm files held back, a chapter is readable and its links are plain links", async ({ page }) => {
  const watch = watchErrors(page);
  await page.route(/\.wasm$/, () => {}); // never answered
  await page.goto(chapter.path);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(chapter.title);
  await expect(page.locator("article p").nth(3)).toBeVisible();
  await expect(page.locator(APP_STARTED)).toHaveCount(0);
  await page.locator(".chapter-nav").getByRole("link", { name: "The agent before the swap" }).click();
  await expect(page).toHaveURL(/\/learn\/the-agent$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("The agent before the swap");
  await expect(page.locator(APP_STARTED)).toHaveCount(0);
  watch.check();
});

test("the app takes a prerendered chapter over with no flash of loading and no jump", async ({ page }) => {
  // Chapter 1, scrolled to a section below its widgets: the widgets are prerendered with
  // the results the app shows, so neither they nor the text under them move.
  const watch = watchErrors(page);
  const release = await holdWasm(page);
  await page.goto("learn/the-agent");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("The agent before the swap");
  // Anything that says "loading" while the app starts is a flash.
  await page.evaluate(() => {
    window.__flashes = [];
    new MutationObserver(() => {
      const loading = document.querySelector(".loading, .chapter-loading");
      if (loading) window.__flashes.push(loading.textContent);
    }).observe(document.body, { subtree: true, childList: true });
  });
  const section = () => page.locator(".prose > h2", { hasText: "What the swap will change" });
  await section().evaluate((h) => window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 120));
  const before = await page.evaluate(() => window.scrollY);
  expect(before).toBeGreaterThan(300);
  const top = await section().evaluate((h) => h.getBoundingClientRect().top);
  const boxes = () => page.locator("figure.widget").evaluateAll((all) => all.map((w) => {
    const r = w.getBoundingClientRect();
    return [Math.round(r.top), Math.round(r.height)];
  }));
  const widgetsBefore = await boxes();
  expect(widgetsBefore.length).toBe(4);

  release();
  await expect(page.locator(APP_STARTED)).toBeVisible({ timeout: 15_000 });
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => window.__flashes)).toEqual([]);
  expect(Math.abs((await page.evaluate(() => window.scrollY)) - before), "the page did not scroll").toBeLessThan(2);
  const after = await section().evaluate((h) => h.getBoundingClientRect().top);
  expect(Math.abs(after - top), "the section did not move").toBeLessThan(2);
  const widgetsAfter = await boxes();
  const moved = widgetsAfter.map(([t, h], i) => Math.max(Math.abs(t - widgetsBefore[i][0]), Math.abs(h - widgetsBefore[i][1])));
  expect(Math.max(...moved), `no widget moved or changed height: ${JSON.stringify([widgetsBefore, widgetsAfter])}`).toBeLessThan(2);
  await expect(page.locator("figure.widget-conversation .widget-run")).toBeEnabled();
  watch.check();
});

const appPages = [
  { path: "./", title: "Swap Lab — is an MCP server a drop-in replacement?", heading: /drop-in replacement/ },
  { path: "play", title: "Playground — Swap Lab", heading: /Playground/ },
  { path: "examples", title: "Examples — Swap Lab", heading: "Examples" },
  { path: "exercises", title: "Exercises — Swap Lab", heading: "Exercises" },
  { path: "workshop", title: "Workshop — Swap Lab", heading: /drop-in replacement/ },
  { path: "workshop/receipts", title: "Receipts — Swap Lab", heading: "Receipts" },
  {
    path: "exercises/01-point-at-the-leak",
    title: "Point at the line that lets a note land on the wrong record — Swap Lab",
    heading: /Point at the line that lets a note land on the wrong record/,
  },
];

test("with JavaScript off, the start, playground, examples, exercises (each one's too) and workshop pages are real pages", async ({ browser, baseURL }, testInfo) => {
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  for (const { path, title, heading } of appPages) {
    await page.goto(path);
    await expect(page, path).toHaveTitle(title);
    await expect(page.getByRole("heading", { level: 1 }), path).toHaveText(heading);
    await expect(page.locator(".loading"), path).toHaveCount(0);
  }
  // The playground shows the tutorial as it ships, its results included, and says why
  // nothing on it answers.
  await page.goto("play");
  await expect(page.locator("textarea.code")).toHaveValue(/^---/);
  await expect(page.locator(".proof-pane .verdict")).toContainText("All 18 checks pass");
  await expect(page.locator("main p.notice")).toContainText("JavaScript is off, so this is the tutorial's example as it ships");
  await shot(page, testInfo, "prerendered-play-no-js");
  await page.goto("exercises/01-point-at-the-leak");
  await expect(page.locator("main p.notice")).toContainText("JavaScript is off, so this exercise shows its files as they start");
  // The example cards and the exercise list link as plain links.
  await page.goto("examples");
  await page.locator('[data-example="confirmation-moved"]').getByRole("link", { name: "Open in the playground" }).click();
  await expect(page).toHaveURL(/\/play\?example=confirmation-moved$/);
  await page.goto("exercises");
  expect(await page.locator(".exercise-list li").count()).toBeGreaterThan(5);
  await context.close();
});

test("the app takes the prerendered playground over without a jump, and a link to another example never shows the wrong one", async ({ page, browser, baseURL }) => {
  const watch = watchErrors(page);
  const release = await holdWasm(page);
  await page.goto("play");
  const verdict = page.locator(".proof-pane .verdict");
  await expect(verdict).toContainText("All 18 checks pass");
  await expect(page.locator(APP_STARTED)).toHaveCount(0);
  const box = async (locator) => {
    const r = await locator.evaluate((e) => e.getBoundingClientRect());
    return [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)];
  };
  const editor = page.locator("textarea.code");
  const before = [await box(verdict), await box(editor)];
  // Typing before the app runs would be lost when it takes over: the editor waits.
  await expect(editor).toHaveAttribute("readonly");
  const label = await editor.getAttribute("aria-label");
  await editor.focus();
  await page.keyboard.type("lost?");
  await expect(editor).not.toHaveValue(/lost\?/);
  release();
  await expect(page.locator(APP_STARTED)).toBeVisible({ timeout: 15_000 });
  await page.waitForTimeout(300);
  // The app's editor takes the focus over, and can be typed in.
  expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(label);
  await expect(editor).not.toHaveAttribute("readonly");
  const after = [await box(verdict), await box(editor)];
  const moved = after.flat().map((v, i) => Math.abs(v - before.flat()[i]));
  expect(Math.max(...moved), `the verdict and the editor stayed put: ${JSON.stringify([before, after])}`).toBeLessThan(2);

  // Another example named in the address: the tutorial is never shown meanwhile. (A
  // fresh context: this one's service worker would answer the wasm itself.)
  const context = await browser.newContext({ baseURL });
  const fresh = await context.newPage();
  const releaseAgain = await holdWasm(fresh);
  await fresh.goto("play?example=confirmation-moved");
  await expect(fresh.locator("main")).toBeVisible();
  await expect(fresh.locator(".example-title")).toBeHidden();
  await expect(fresh.locator(".proof-pane")).toBeHidden();
  await expect(fresh.locator(APP_STARTED)).toHaveCount(0);
  const placeholder = await fresh.locator("main").evaluate((main) => getComputedStyle(main, "::before").content);
  expect(placeholder).toBe('"Loading Swap Lab…"');
  releaseAgain();
  await expect(fresh.locator(".example-title")).toContainText("The confirmation that moved", { timeout: 15_000 });
  await context.close();
  watch.check();
});
