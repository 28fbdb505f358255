// Speed budgets measured in the browser, as a reader meets them: how soon the
// playground shows every verdict after navigation (also with the CPU throttled 4×), how
// soon a first visit on a slow phone paints a chapter and the playground, and
// how long one edit's full rerun takes (recompute everything + render the panes), and how
// much the wasm memory grows over those edits. The limits come from budgets.toml's [time]
// and [memory] tables, which `cargo xtask test` passes in as
// SWAPLAB_BUDGET_* variables; what is measured and how is in e2e/measure.mjs. Only
// medians and percentiles are compared, never a single timing. Figures are printed;
// budgets are asserted. These tests run after all the others, one at a time.
import { test, expect } from "@playwright/test";
import { open } from "./helpers.mjs";
import fs from "node:fs";
import path from "node:path";
import { CHAPTER, budget, interactiveTimes, ms, percentile, rerunTimes, summary, typingTimes, visitTimes, wasmMemory, watchWasmMemory } from "./measure.mjs";
import { writeScaleWorkspace } from "./scale-workspace.mjs";

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

// A phone on slow 4G (`SWAPLAB_PHONE`: the site behind that link, from `cargo xtask
// test`): what a reader in a crowded workshop room waits for.
test("on a slow 4G phone, a chapter and the playground paint within budget, and a second visit is quick", async ({ browser }) => {
  test.setTimeout(300_000);
  const phone = JSON.parse(process.env.SWAPLAB_PHONE || "null");
  if (!phone) throw new Error("SWAPLAB_PHONE is not set: run the budgets with `cargo xtask test`");
  const chapterLimit = budget("SWAPLAB_BUDGET_SLOW_4G_CHAPTER_PAINTED_MS");
  const playLimit = budget("SWAPLAB_BUDGET_SLOW_4G_PLAY_PAINTED_MS");
  const secondLimit = budget("SWAPLAB_BUDGET_SLOW_4G_SECOND_VISIT_MS");
  const v = await visitTimes(browser, phone, { visits: 3 });
  const line = (s) => `median ${ms(s.median)} (min ${ms(s.min)}, max ${ms(s.max)})`;
  console.log(`budget: ${phone.name}, first visit: /${CHAPTER} painted, ${line(v.chapter)}; budget ${chapterLimit} ms`);
  console.log(`budget: ${phone.name}, first visit: /play painted (prerendered), ${line(v.painted)}; budget ${playLimit} ms`);
  console.log(`budget: ${phone.name}, first visit: /play verdicts live, ${line(v.first)}; ${Math.round(v.bytes.median / 1000)} KB received`);
  console.log(`budget: ${phone.name}, second visit: /play interactive, ${line(v.repeat)}; budget ${secondLimit} ms`);
  expect(v.chapter.median).toBeLessThan(chapterLimit);
  expect(v.painted.median).toBeLessThan(playLimit);
  expect(v.repeat.median).toBeLessThan(secondLimit);
});

// Typing, with the CPU throttled 4× (a phone): a keystroke's time to the editor's
// repaint and an edit's time to every pane updated, on the tutorial and on the 300-skill
// workspace of the scaling benchmark, with every main-thread task over 50 ms meanwhile.
// Figures only, for now: issue 24's budgets for them (a keystroke p95 within 16 ms,
// every pane within 50 ms) wait on the engine's move into a worker, and budgets.toml
// says what was measured. The test checks that the measurement itself happened.
test("typing with the CPU throttled 4×: keystroke and pane-update figures, and the long tasks", async ({ page }) => {
  test.setTimeout(300_000);
  const workspaces = [["the tutorial", null], ["300 skills", writeScaleWorkspace(300)]];
  for (const [name, folder] of workspaces) {
    await open(page, "play");
    if (folder) {
      const files = page.getByRole("navigation", { name: "Files" });
      await files.locator('input[data-import="folder"]').setInputFiles(folder);
      const panel = files.getByRole("region", { name: "Import" });
      await panel.getByRole("button", { name: "Import", exact: true }).click();
      await expect(files.getByRole("status")).toContainText("Imported", { timeout: 30_000 });
      await files.locator('[data-file="after/skills/check_tickets_99/skill.md"]').click();
    }
    const typed = await typingTimes(page, { words: 10, throttle: 4 });
    const keys = typed.keystrokes;
    const longest = Math.max(0, ...typed.tasks);
    console.log(
      `budget: typing on ${name}, CPU throttled 4×: keystroke to repaint p50 ${ms(percentile(keys, 50))}, p95 ${ms(percentile(keys, 95))} over ${keys.length} keystrokes; ` +
        `every pane updated p50 ${ms(percentile(typed.reruns, 50))}, p95 ${ms(percentile(typed.reruns, 95))} over ${typed.reruns.length} edits; ` +
        `${typed.tasks.length} main-thread tasks over 50 ms, the longest ${ms(longest)}`,
    );
    expect(keys.length, "every keystroke was timed").toBeGreaterThanOrEqual(60);
    expect(typed.reruns.length, "every word had its rerun").toBeGreaterThanOrEqual(10);
    if (folder) fs.rmSync(path.dirname(folder), { recursive: true, force: true });
  }
});
