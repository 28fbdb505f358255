// The browser measurements shared by e2e/budgets.spec.mjs (which asserts the budgets in
// `cargo xtask test`) and e2e/perf.spec.mjs (which records the figures for
// `cargo xtask bench`), so both measure the same thing the same way.
//
// - Interactive: from navigation start to the app's playground showing the Proof tab's
//   ✓, the moment a MutationObserver installed before the page's own scripts sees it
//   (`performance.now()` in the page; 0 is the navigation's start). The prerendered
//   page has the tab and its ✓ before the app runs: only the app's own header (its theme
//   button) says the app has started.
// - Painted: First Contentful Paint, from the Paint Timing API. The pages are
//   prerendered, so it is the moment the chapter's text, or the playground with the
//   example's files and results, is on screen.
// - Rerun: one edit's full rerun as the app records it in `window.swaplabTimings.rerun`:
//   from the end of the 120 ms typing pause to the last pane showing the new results
//   rendered (recompute everything + render).
// - Visits: interactive as above, but in a fresh browser context (no HTTP cache, no
//   service worker) with the site behind a slow link and the CPU slowed, then once more
//   after the service worker has taken over: what a reader's first and second visit cost.
import { expect } from "@playwright/test";
import { APP_STARTED } from "./helpers.mjs";

export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** Median, min and max of a list of numbers, plus the list itself. */
export const summary = (values) => ({
  median: percentile(values, 50),
  min: Math.min(...values),
  max: Math.max(...values),
  samples: values,
});

/** Reads a budget `cargo xtask test` passes in the environment (from budgets.toml). */
export function budget(name) {
  const value = Number(process.env[name]);
  if (!process.env[name] || !Number.isFinite(value)) {
    throw new Error(`${name} is not set: run the budgets with \`cargo xtask test\` (it reads budgets.toml)`);
  }
  return value;
}

/** Runs `body(throttleAgain, cdp)` with a CDP session on `page` and the CPU slowed
 *  `rate` times (CDP Emulation.setCPUThrottlingRate); `throttleAgain()` sets the rate
 *  once more, for after a navigation (the renderer may change with it). Afterwards the
 *  rate is back to 1 and the session closed, whatever happened. */
async function withSlowCpu(page, rate, body) {
  const cdp = await page.context().newCDPSession(page);
  const throttleAgain = () => cdp.send("Emulation.setCPUThrottlingRate", { rate });
  try {
    await throttleAgain();
    return await body(throttleAgain, cdp);
  } finally {
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 }).catch(() => {});
    await cdp.detach().catch(() => {});
  }
}

async function watchInteractive(page) {
  await page.addInitScript((started) => {
    const ready = () =>
      document.querySelector(started) &&
      [...document.querySelectorAll('[role="tab"]')].some(
        (tab) => tab.textContent.trim().startsWith("Proof") && tab.textContent.includes("✓"),
      );
    const observer = new MutationObserver(() => {
      if (window.swaplabInteractiveAt === undefined && ready()) {
        window.swaplabInteractiveAt = performance.now();
        observer.disconnect();
      }
    });
    observer.observe(document, { subtree: true, childList: true, characterData: true });
  }, APP_STARTED);
}

/** Waits for the playground's Proof tab to show its ✓ and returns when the page saw it
 *  (`watchInteractive` must be installed). */
async function interactiveAt(page, timeout) {
  await expect(page.locator(APP_STARTED)).toBeVisible({ timeout });
  await expect(page.getByRole("tab", { name: /^Proof/ })).toContainText("✓", { timeout });
  return page.evaluate(() => window.swaplabInteractiveAt);
}

/** Loads the playground `loads` times and returns each load's time to interactive, in
 *  ms. `throttle` slows the CPU that many times (CDP Emulation.setCPUThrottlingRate). */
export async function interactiveTimes(page, { loads = 10, throttle = 1 } = {}) {
  await watchInteractive(page);
  return withSlowCpu(page, throttle, async (throttleAgain) => {
    const times = [];
    for (let i = 0; i < loads; i++) {
      await throttleAgain();
      await page.goto("play");
      times.push(await interactiveAt(page, 15_000));
    }
    return times;
  });
}

/** Types `edits` single characters at the end of the open file, waiting for each one's
 *  rerun, and returns the reruns' durations in ms. */
export async function rerunTimes(page, edits) {
  const area = page.getByRole("textbox", { name: /^Contents of / });
  await area.focus();
  await area.press("Control+End");
  const before = await page.evaluate(() => window.swaplabTimings?.rerun?.length ?? 0);
  for (let i = 0; i < edits; i++) {
    await page.keyboard.type(i % 2 ? "x" : "y");
    // Wait out the pause so each keystroke gets its own rerun.
    await page.waitForFunction((n) => (window.swaplabTimings?.rerun?.length ?? 0) >= n, before + i + 1);
  }
  return page.evaluate((from) => window.swaplabTimings.rerun.slice(from), before);
}

/** Makes the app's wasm memory readable by `wasmMemory`: Trunk's loader hands the
 *  module's exports to the `TrunkApplicationStarted` event. Call before navigating. */
export async function watchWasmMemory(page) {
  await page.addInitScript(() => {
    addEventListener("TrunkApplicationStarted", (event) => {
      window.__swaplabWasmMemory = event.detail.wasm.memory;
    });
  });
}

/** The size in bytes of the app's wasm linear memory (it grows and never shrinks, so
 *  this is the most the app has held at once); needs `watchWasmMemory`. */
export async function wasmMemory(page) {
  const bytes = await page.evaluate(() => window.__swaplabWasmMemory?.buffer.byteLength);
  if (typeof bytes !== "number") throw new Error("the app's wasm memory is not in view: call watchWasmMemory before navigating");
  return bytes;
}

/** The page's JS heap in bytes after a forced garbage collection (CDP
 *  Performance.getMetrics: JSHeapUsedSize and JSHeapTotalSize). The wasm module's
 *  linear memory is an ArrayBuffer outside this figure. */
export async function jsHeap(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send("HeapProfiler.collectGarbage");
    await cdp.send("Performance.enable");
    const { metrics } = await cdp.send("Performance.getMetrics");
    const metric = (name) => metrics.find((m) => m.name === name)?.value;
    return { used: metric("JSHeapUsedSize"), total: metric("JSHeapTotalSize") };
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** The chapter whose first paint the visits time. */
export const CHAPTER = "learn/the-swap";

/** Times `visits` first visits to the playground on `profile` (from `cargo xtask bench`:
 *  `{ name, url, rtt_ms, down_kbit, cpu }`, where `url` serves the site behind a link of
 *  that round trip and bandwidth, shared by the page and its service worker), each in a
 *  new browser context, and after each a second visit once the service worker controls
 *  the page. The CPU is slowed `cpu` times (CDP Emulation.setCPUThrottlingRate). Returns
 *  the times to interactive in ms, when the first visit painted (the prerendered
 *  playground), when a first visit to a chapter painted, and the bytes the page received before it was
 *  interactive on the first visit (CDP `Network.loadingFinished`' encodedDataLength:
 *  what came over the wire, compressed as the server sent it). */
export async function visitTimes(browser, profile, { visits = 5 } = {}) {
  const first = [];
  const painted = [];
  const repeat = [];
  const bytes = [];
  await inFreshContexts(browser, profile, visits, async (page) => {
    await watchInteractive(page);
    await withSlowCpu(page, profile.cpu, async (throttleAgain, cdp) => {
      let received = 0;
      cdp.on("Network.loadingFinished", (event) => (received += event.encodedDataLength));
      await cdp.send("Network.enable");
      await page.goto("play");
      first.push(await interactiveAt(page, 60_000));
      bytes.push(received);
      painted.push(await firstContentfulPaint(page));
      // The service worker precaches every built file, then takes over the page.
      await page.waitForFunction(() => navigator.serviceWorker?.controller, null, { timeout: 120_000 });
      await throttleAgain();
      await page.reload();
      repeat.push(await interactiveAt(page, 60_000));
    });
  });
  const chapter = await firstPaintTimes(browser, profile, CHAPTER, { visits });
  const { url, ...described } = profile;
  return {
    ...described,
    visits,
    first: summary(first),
    painted: summary(painted),
    chapter: chapter.painted,
    repeat: summary(repeat),
    bytes: summary(bytes),
  };
}

/** Runs `visit(page)` `visits` times, each on a new page in a new browser context (no
 *  cache, no service worker: a first visit) on `profile`'s URL, closing the context
 *  whatever happens. */
async function inFreshContexts(browser, profile, visits, visit) {
  for (let i = 0; i < visits; i++) {
    const context = await browser.newContext({ baseURL: profile.url });
    try {
      await visit(await context.newPage());
    } finally {
      await context.close();
    }
  }
}

/** First Contentful Paint of the page, in ms from its navigation's start. */
async function firstContentfulPaint(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) => {
        const found = () => performance.getEntriesByName("first-contentful-paint")[0];
        if (found()) return resolve(found().startTime);
        new PerformanceObserver(() => found() && resolve(found().startTime)).observe({ type: "paint", buffered: true });
      }),
  );
}

/** First visits to `path` on `profile` (as `visitTimes` takes it), each in a fresh
 *  browser context: when the page first painted, and with `live`, when the app's
 *  playground was interactive too. */
export async function firstPaintTimes(browser, profile, path, { visits = 3, live = false } = {}) {
  const painted = [];
  const interactive = [];
  await inFreshContexts(browser, profile, visits, async (page) => {
    if (live) await watchInteractive(page);
    await withSlowCpu(page, profile.cpu, async () => {
      await page.goto(path, { waitUntil: "domcontentloaded" });
      painted.push(await firstContentfulPaint(page));
      if (live) interactive.push(await interactiveAt(page, 60_000));
    });
  });
  return { painted: summary(painted), interactive: live ? summary(interactive) : null };
}

/** Types `words` words of five letters into the open file, a keystroke every 40 ms and a
 *  pause after each word long enough for the rerun (as a reader types), and returns:
 *  - `keystrokes`: each keystroke's time from its `keydown` to the end of the next
 *    frame (a `requestAnimationFrame` callback, then a task after it: the frame that
 *    shows the typed character has been produced);
 *  - `tasks`: every main-thread task over 50 ms meanwhile (the Long Tasks API), in ms;
 *  - `reruns`: the reruns the app recorded meanwhile (`window.swaplabTimings.rerun`).
 *  `throttle` slows the CPU that many times. */
export async function typingTimes(page, { words = 8, throttle = 1 } = {}) {
  return withSlowCpu(page, throttle, async () => {
    await page.evaluate(() => {
      window.swaplabTyping = { keystrokes: [], tasks: [] };
      document.addEventListener(
        "keydown",
        (event) => {
          const start = event.timeStamp;
          requestAnimationFrame(() => setTimeout(() => window.swaplabTyping.keystrokes.push(performance.now() - start), 0));
        },
        true,
      );
      new PerformanceObserver((list) => {
        for (const task of list.getEntries()) window.swaplabTyping.tasks.push(task.duration);
      }).observe({ type: "longtask" });
    });
    const area = page.getByRole("textbox", { name: /^Contents of / });
    await area.focus();
    await area.press("Control+End");
    const before = await page.evaluate(() => window.swaplabTimings?.rerun?.length ?? 0);
    for (let i = 0; i < words; i++) {
      await page.keyboard.type(` word${i % 10}`.slice(0, 6), { delay: 40 });
      await page.waitForFunction((n) => (window.swaplabTimings?.rerun?.length ?? 0) >= n, before + i + 1, { timeout: 30_000 });
    }
    await page.waitForTimeout(200);
    return page.evaluate((from) => ({ ...window.swaplabTyping, reruns: window.swaplabTimings.rerun.slice(from) }), before);
  });
}

export const ms = (value) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;
