// The browser figures for BENCHMARKS.md, recorded by `cargo xtask bench` (its own
// Playwright project, `perf`; `cargo xtask test` does not run it — e2e/budgets.spec.mjs
// asserts the budgets there). Measures, with e2e/measure.mjs: time to interactive over
// 10 loads, also with the CPU throttled 4×; a first and a second visit on a slow phone
// and on an ordinary laptop (xtask serves the site behind links it slows, named in
// $SWAPLAB_VISIT_PROFILES); the full rerun over 200 edits; the JS heap and the wasm
// memory before and after those edits. Writes everything as JSON to $SWAPLAB_PERF_OUT.
import { test, expect } from "@playwright/test";
import fs from "node:fs";
import { open } from "./helpers.mjs";
import {
  interactiveTimes,
  jsHeap,
  ms,
  percentile,
  rerunTimes,
  summary,
  visitTimes,
  wasmMemory,
  watchWasmMemory,
} from "./measure.mjs";

const LOADS = 10;
const EDITS = 200;
const VISITS = 5;

test("browser figures for BENCHMARKS.md", async ({ page, browser }) => {
  test.setTimeout(600_000);
  const out = process.env.SWAPLAB_PERF_OUT;
  if (!out) throw new Error("SWAPLAB_PERF_OUT is not set: run this with `cargo xtask bench`");
  const profiles = JSON.parse(process.env.SWAPLAB_VISIT_PROFILES || "null");
  if (!Array.isArray(profiles)) throw new Error("SWAPLAB_VISIT_PROFILES is not set: run this with `cargo xtask bench`");

  const interactive = summary(await interactiveTimes(page, { loads: LOADS }));
  console.log(`perf: interactive, median ${ms(interactive.median)} (${ms(interactive.min)}–${ms(interactive.max)})`);
  const throttled = summary(await interactiveTimes(page, { loads: LOADS, throttle: 4 }));
  console.log(`perf: interactive at 4× throttle, median ${ms(throttled.median)} (${ms(throttled.min)}–${ms(throttled.max)})`);

  const visits = [];
  for (const profile of profiles) {
    const v = await visitTimes(browser, profile, { visits: VISITS });
    console.log(
      `perf: ${profile.name}: first visit ${ms(v.first.median)} (${Math.round(v.bytes.median / 1000)} KB received), ` +
        `second ${ms(v.repeat.median)}`,
    );
    visits.push(v);
  }

  await watchWasmMemory(page);
  await open(page, "play");
  const heapBefore = await jsHeap(page);
  const wasmBefore = await wasmMemory(page);
  const reruns = await rerunTimes(page, EDITS);
  expect(reruns.length).toBe(EDITS);
  const heapAfter = await jsHeap(page);
  const wasmAfter = await wasmMemory(page);
  const rerun = {
    edits: reruns.length,
    p50: percentile(reruns, 50),
    p95: percentile(reruns, 95),
    min: Math.min(...reruns),
    max: Math.max(...reruns),
    samples: reruns,
  };
  console.log(`perf: rerun over ${EDITS} edits, p50 ${ms(rerun.p50)}, p95 ${ms(rerun.p95)}`);
  console.log(`perf: JS heap ${heapBefore.used} bytes before the edits, ${heapAfter.used} after`);
  console.log(`perf: wasm memory ${wasmBefore} bytes before the edits, ${wasmAfter} after`);

  const result = {
    chromium: browser.version(),
    loads: LOADS,
    interactive,
    interactive_throttled: { ...throttled, throttle: 4 },
    visits,
    rerun,
    heap: { before_edits: heapBefore, after_edits: heapAfter },
    wasm_memory: { before_edits: wasmBefore, after_edits: wasmAfter },
  };
  fs.writeFileSync(out, JSON.stringify(result, null, 2));
});
