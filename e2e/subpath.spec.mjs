// The same build served under /swaplab/: links, deep links and reloads stay under it.
import { test, expect } from "@playwright/test";
import { open, shot, watchErrors } from "./helpers.mjs";

test("the site works under a sub-path, including deep links", async ({ page, baseURL }, testInfo) => {
  const watch = watchErrors(page);
  const base = new URL(baseURL).pathname;
  expect(base).toBe("/swaplab/");

  await open(page, "");
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Learn" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}learn$`));

  await open(page, "learn/the-agent");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("The agent before the swap");
  await page.getByRole("link", { name: "Open these files in the playground" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}play(\\?example=tutorial)?$`));
  await expect(page.getByRole("navigation", { name: "Files" })).toBeVisible();

  await page.reload();
  await expect(page.getByRole("navigation", { name: "Files" })).toBeVisible();
  await shot(page, testInfo, "play");

  await open(page, "examples");
  await page.locator('[data-example="tutorial"]').getByRole("link", { name: "Open in the playground" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}play\\?example=tutorial$`));
  watch.check();
});

test("under a sub-path, a prerendered chapter with JavaScript off keeps its links under it", async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto("learn/the-agent");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("The agent before the swap");
  await expect(page.locator("article h2 .heading-anchor").first()).toHaveAttribute("href", /learn\/the-agent#/);
  await page.getByRole("navigation", { name: "Chapter navigation" }).getByRole("link", { name: /Next/ }).click();
  await expect(page).toHaveURL(/\/swaplab\/learn\/the-swap$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("What the swap changes");
  await context.close();
});
