// Shared steps for the end-to-end tests: open a page the way a reader does and fail on
// anything the browser reports as broken.
import { expect } from "@playwright/test";
import fs from "node:fs";
import path from "node:path";

const shots = path.join(import.meta.dirname, "results", "screenshots");

/** Records console errors and warnings, uncaught exceptions, failed requests and
 *  HTTP errors; `check()` fails the test on any. */
export function watchErrors(page) {
  const errors = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") errors.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on("pageerror", (err) => errors.push(`page error: ${err.message}`));
  page.on("requestfailed", (req) => {
    // A navigation cancels what the previous page was still fetching (a favicon, say):
    // that is the browser moving on, not the site failing.
    const reason = req.failure()?.errorText;
    if (reason !== "net::ERR_ABORTED") errors.push(`request failed: ${req.url()} ${reason}`);
  });
  page.on("response", (res) => {
    if (res.status() >= 400) errors.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  return { errors, check: () => expect(errors, errors.join("\n")).toEqual([]) };
}

/** The app's own header: its theme button is not in a prerendered page's header, so
 *  this tells that the app has started, not just that a page is showing. */
export const APP_STARTED = "header .theme-toggle";

/** Goes to a path relative to the site's base and waits until the app has rendered. */
export async function open(page, relativePath) {
  await page.goto(relativePath);
  await expect(page.locator(APP_STARTED)).toBeVisible();
}

/** Saves a screenshot under e2e/results/screenshots/ to look at after the run. */
export async function shot(page, testInfo, name) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${testInfo.project.name}-${name}.png`), fullPage: true });
}

/** Marks the document on screen, so `sameDocument` can tell later whether a click
 *  stayed in the app or loaded the page again. */
export async function markDocument(page) {
  await page.evaluate(() => (window.__sameDocument = true));
}

/** Whether the document `markDocument` marked is still the one on screen. */
export async function sameDocument(page) {
  return page.evaluate(() => window.__sameDocument === true);
}

/** Holds back the page's wasm (`*_bg.wasm`) until the returned function is called: the
 *  prerendered page stays on screen and the app cannot start meanwhile. */
export async function holdWasm(page) {
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route(/_bg\.wasm$/, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}
