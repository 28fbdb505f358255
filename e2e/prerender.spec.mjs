// The reading pages before any wasm: every chapter is a real page, readable with
// JavaScript off and with the wasm held back, its links plain links; and when the app
// does start, it takes the page over without a flash of "Loading…" or a jump.
import { test, expect } from "@playwright/test";
import { APP_STARTED, shot, watchErrors } from "./helpers.mjs";

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
  await expect(article.locator("figure.widget-static").first()).toContainText("Open it in the playground");
  await expect(page.locator(".loading")).toHaveCount(0);
  await shot(page, testInfo, "prerendered-chapter-no-js");

  // Plain links: the next chapter, then the chapter list from the header.
  await page.getByRole("navigation", { name: "Chapter navigation" }).getByRole("link", { name: /Next/ }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(chapter.next);
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
  // Chapter 1's sections before its first widget: widgets are not prerendered with their
  // results yet, so text below one may still move when the app fills it in.
  const watch = watchErrors(page);
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route(/_bg\.wasm$/, async (route) => {
    await held;
    await route.continue();
  });
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
  const section = () => page.locator(".prose > h2", { hasText: "Where the ticket tool gets its id" });
  await section().evaluate((h) => window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 120));
  const before = await page.evaluate(() => window.scrollY);
  expect(before).toBeGreaterThan(300);
  const top = await section().evaluate((h) => h.getBoundingClientRect().top);

  release();
  await expect(page.locator(APP_STARTED)).toBeVisible({ timeout: 15_000 });
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => window.__flashes)).toEqual([]);
  expect(Math.abs((await page.evaluate(() => window.scrollY)) - before), "the page did not scroll").toBeLessThan(2);
  const after = await section().evaluate((h) => h.getBoundingClientRect().top);
  expect(Math.abs(after - top), "the section did not move").toBeLessThan(2);
  watch.check();
});
