// The browser measurements shared by e2e/budgets.spec.mjs (which asserts the budgets in
// `cargo xtask test`) and e2e/perf.spec.mjs (which records the figures for
// `cargo xtask bench`), so both measure the same thing the same way.
//
// - Interactive: from navigation start to the playground's Proof tab showing its ✓,
//   the moment a MutationObserver installed before the page's own scripts sees it
//   (`performance.now()` in the page; 0 is the navigation's start).
// - Rerun: one edit's full rerun as the app records it in `window.swaplabTimings.rerun`:
//   from the end of the 120 ms typing pause to the last pane showing the new results
//   rendered (recompute everything + render).
// - Visits: interactive as above, but in a fresh browser context (no HTTP cache, no
//   service worker) with the site behind a slow link and the CPU slowed, then once more
//   after the service worker has taken over: what a reader's first and second visit cost.
import { expect } from "@playwright/test";

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

async function watchInteractive(page) {
  await page.addInitScript(() => {
    const ready = () =>
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
  });
}

/** Waits for the playground's Proof tab to show its ✓ and returns when the page saw it
 *  (`watchInteractive` must be installed). */
async function interactiveAt(page, timeout) {
  await expect(page.getByRole("tab", { name: /^Proof/ })).toContainText("✓", { timeout });
  return page.evaluate(() => window.swaplabInteractiveAt);
}

/** Loads the playground `loads` times and returns each load's time to interactive, in
 *  ms. `throttle` slows the CPU that many times (CDP Emulation.setCPUThrottlingRate). */
export async function interactiveTimes(page, { loads = 10, throttle = 1 } = {}) {
  await watchInteractive(page);
  const cdp = await page.context().newCDPSession(page);
  const times = [];
  try {
    for (let i = 0; i < loads; i++) {
      // Set before every navigation: the renderer may change with it.
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: throttle });
      await page.goto("play");
      times.push(await interactiveAt(page, 15_000));
    }
  } finally {
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 }).catch(() => {});
    await cdp.detach().catch(() => {});
  }
  return times;
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

/** Times `visits` first visits to the playground on `profile` (from `cargo xtask bench`:
 *  `{ name, url, rtt_ms, down_kbit, cpu }`, where `url` serves the site behind a link of
 *  that round trip and bandwidth, shared by the page and its service worker), each in a
 *  new browser context, and after each a second visit once the service worker controls
 *  the page. The CPU is slowed `cpu` times (CDP Emulation.setCPUThrottlingRate). Returns
 *  the times to interactive in ms and the bytes the page received before it was
 *  interactive on the first visit (CDP `Network.loadingFinished`' encodedDataLength:
 *  what came over the wire, compressed as the server sent it). */
export async function visitTimes(browser, profile, { visits = 5 } = {}) {
  const first = [];
  const repeat = [];
  const bytes = [];
  for (let i = 0; i < visits; i++) {
    const context = await browser.newContext({ baseURL: profile.url });
    try {
      const page = await context.newPage();
      await watchInteractive(page);
      const cdp = await context.newCDPSession(page);
      let received = 0;
      cdp.on("Network.loadingFinished", (event) => (received += event.encodedDataLength));
      await cdp.send("Network.enable");
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: profile.cpu });
      await page.goto("play");
      first.push(await interactiveAt(page, 60_000));
      bytes.push(received);
      // The service worker precaches every built file, then takes over the page.
      await page.waitForFunction(() => navigator.serviceWorker?.controller, null, { timeout: 120_000 });
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: profile.cpu });
      await page.reload();
      repeat.push(await interactiveAt(page, 60_000));
      await cdp.detach().catch(() => {});
    } finally {
      await context.close();
    }
  }
  const { url, ...described } = profile;
  return { ...described, visits, first: summary(first), repeat: summary(repeat), bytes: summary(bytes) };
}

export const ms = (value) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;
