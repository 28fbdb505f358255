// Speed budgets measured in the browser, as a reader meets them: how soon the
// playground shows every verdict after navigation (also with the CPU throttled 4×), and
// how long one edit's full rerun takes (recompute everything + render the panes), and how
// much the wasm memory grows over those edits. The limits come from budgets.toml's [time]
// and [memory] tables, which `cargo xtask test` passes in as
// SWAPLAB_BUDGET_* variables; what is measured and how is in e2e/measure.mjs. Only
// medians and percentiles are compared, never a single timing. Figures are printed;
// budgets are asserted. These tests run after all the others, one at a time.
import { test, expect } from "@playwright/test";
import { open } from "./helpers.mjs";
import { budget, interactiveTimes, ms, percentile, rerunTimes, summary, wasmMemory, watchWasmMemory } from "./measure.mjs";

// One at a time: a timing taken while another test drives the browser measures both.
test.describe.configure({ mode: "serial" });

const LOADS = 10;
const EDITS = 200;

for (const [throttle, name] of [
  [1, "SWAPLAB_BUDGET_INTERACTIVE_MS"],
  [4, "SWAPLAB_BUDGET_INTERACTIVE_THROTTLED_MS"],
]) {
  const label = throttle === 1 ? "" : `, CPU throttled ${throttle}×`;
  test(`the playground is interactive within budget after navigation (median of ${LOADS} loads${label})`, async ({ page }) => {
    test.setTimeout(120_000);
    const limit = budget(name);
    const times = summary(await interactiveTimes(page, { loads: LOADS, throttle }));
    console.log(`budget: interactive after navigation${label}, median ${ms(times.median)} (min ${ms(times.min)}, max ${ms(times.max)}; budget ${limit} ms)`);
    expect(times.median).toBeLessThan(limit);
  });
}

test(`an edit's full rerun stays within budget at the 95th percentile over ${EDITS} edits, and the memory settles`, async ({ page }) => {
  test.setTimeout(180_000);
  const limit = budget("SWAPLAB_BUDGET_RERUN_P95_MS");
  const growthLimit = budget("SWAPLAB_BUDGET_WASM_GROWTH_KB");
  await watchWasmMemory(page);
  await open(page, "play");
  await expect(page.getByRole("tab", { name: /^Proof/ })).toContainText("✓", { timeout: 15_000 });
  const memoryBefore = await wasmMemory(page);
  const reruns = await rerunTimes(page, EDITS);
  const growth = ((await wasmMemory(page)) - memoryBefore) / 1000;
  console.log(`budget: wasm memory ${memoryBefore} bytes loaded, grew ${growth} KB over ${EDITS} edits (budget ${growthLimit} KB)`);
  expect(growth).toBeLessThanOrEqual(growthLimit);
  const first = await page.evaluate(() => window.swaplabTimings["first-analysis"]?.[0]);
  expect(reruns.length).toBe(EDITS);
  const p50 = percentile(reruns, 50);
  const p95 = percentile(reruns, 95);
  console.log(`budget: rerun after an edit over ${reruns.length} edits: p50 ${ms(p50)}, p95 ${ms(p95)} (budget ${limit} ms); first analysis ${first?.toFixed(1)} ms`);
  expect(p95).toBeLessThan(limit);
});
