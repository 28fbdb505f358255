// Offline: once the site has loaded, its service worker (www/sw.js) answers from its
// cache, so with the network cut a reader can still move between chapters, open the
// playground and reload a deep link. Checked at / and, with the second build, under
// /swaplab/ (the config runs only subpath.spec there, so that test uses the sub-path's
// URL directly).
import { test, expect } from "@playwright/test";
import { APP_STARTED, holdWasm, shot, watchErrors } from "./helpers.mjs";

const sites = [
  { name: "at the root", url: process.env.SWAPLAB_URL, base: "/" },
  { name: "under /swaplab/", url: process.env.SWAPLAB_SUBPATH_URL, base: "/swaplab/" },
];

/** Goes to `path` under `site` and waits until the app has rendered. */
async function visit(page, site, path) {
  await page.goto(new URL(path, site.url).href);
  await expect(page.locator(APP_STARTED)).toBeVisible();
}

/** Waits until the service worker has installed and controls the page. */
async function waitForServiceWorker(page) {
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  // The worker claims the page that registered it; reload once if that has not shown yet.
  if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) {
    await page.reload();
    await expect(page.locator(APP_STARTED)).toBeVisible();
  }
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toMatch(/\/sw\.js$/);
  return scope;
}

/** Cuts the network: the browser's offline mode, and every request Playwright sees
 *  (the service worker's own included) aborted. With Playwright 1.65 either one alone
 *  already fails the worker's fetches; both stay in case a release changes one. The
 *  probe at the end of the test checks that the network is really gone. */
async function goOffline(context) {
  await context.setOffline(true);
  await context.route("**", (route) => route.abort("internetdisconnected"));
}

async function expectChapter(page, title) {
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title);
  await expect(page).toHaveTitle(`${title} — Swap Lab`);
}

for (const site of sites) {
  test(`the site works offline once loaded, ${site.name}`, async ({ page, context }, testInfo) => {
    test.setTimeout(60_000);
    const watch = watchErrors(page);
    const base = `${new URL(site.url).origin}${site.base}`;

    await visit(page, site, "learn/the-agent");
    await expectChapter(page, "The agent before the swap");
    expect(await waitForServiceWorker(page)).toBe(base);
    await goOffline(context);

    // Every chapter, reached by clicking, as a reader would.
    const sections = page.getByRole("navigation", { name: "Sections" });
    await sections.getByRole("link", { name: "Learn" }).click();
    await expect(page).toHaveURL(`${base}learn`);
    const titles = await page.locator("ol.chapter-list a").allTextContents();
    expect(titles.length).toBeGreaterThan(0);
    for (const title of titles) {
      await sections.getByRole("link", { name: "Learn" }).click();
      await page.locator("ol.chapter-list").getByRole("link", { name: title, exact: true }).click();
      await expect(page).toHaveURL(new RegExp(`^${base}learn/[^/]+$`));
      await expectChapter(page, title);
    }
    // The chapter's own previous/next links, where there is more than one chapter.
    const previous = page.getByRole("navigation", { name: "Chapter navigation" }).getByRole("link").first();
    if (titles.length > 1) {
      const target = await previous.locator(".title").textContent();
      await previous.click();
      await expectChapter(page, target);
    }

    // Reloading deep links: the worker answers each with the cached app.
    for (const [path, check] of [
      ["learn/the-agent", () => expectChapter(page, "The agent before the swap")],
      ["play", () => expect(page.getByRole("navigation", { name: "Files" })).toBeVisible()],
    ]) {
      const response = await page.goto(`${base}${path}`);
      expect(response.fromServiceWorker(), `${path} came from the service worker`).toBe(true);
      await expect(page.locator(APP_STARTED)).toBeVisible();
      await check();
      await page.reload();
      await expect(page.locator(APP_STARTED)).toBeVisible();
      await check();
    }
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Playground");
    await expect(page).toHaveTitle(/Swap Lab/);
    await page.getByRole("link", { name: "Learn" }).first().click();
    await page.getByRole("link", { name: "The agent before the swap" }).click();
    await expectChapter(page, "The agent before the swap");
    await shot(page, testInfo, `offline-chapter${site.base === "/" ? "" : "-subpath"}`);
    watch.check();

    // And the network really was cut: a file the cache does not hold cannot be fetched.
    const probe = await page.evaluate(async () => {
      try {
        return (await fetch(`offline-probe-${Date.now()}.txt`)).status;
      } catch {
        return "failed";
      }
    });
    expect(probe).toBe("failed");
  });
}

// The worker downloads every built file when it installs. Registered as the page loads,
// it did so while the app's own wasm was still on the way, and on a slow phone the two
// shared the line (docs/benchmarks-notes.md: a 9.6 s first visit instead of 5.8 s). So
// it waits for the app to start: with the wasm held back, no worker may register.
test("the service worker waits for the app to start, so its downloads never share the line with the wasm", async ({ page }) => {
  const release = await holdWasm(page);
  await page.goto("play", { waitUntil: "load" });
  // The page's load has come and gone (the trigger the worker once waited for); a
  // registration made then would show within this second.
  await page.waitForTimeout(1_000);
  expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()) === undefined)).toBe(true);
  // The prerendered playground shows meanwhile; the app has not started.
  await expect(page.getByRole("tab", { name: /^Proof/ })).toBeVisible();
  await expect(page.locator(APP_STARTED)).toHaveCount(0);

  release();
  await expect(page.locator(APP_STARTED)).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole("tab", { name: /^Proof/ })).toContainText("✓");
  expect(await waitForServiceWorker(page)).toBe(new URL(".", page.url()).href);
});
