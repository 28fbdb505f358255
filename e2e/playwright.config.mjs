// Playwright drives Debian's Chromium (never a downloaded browser) against the site that
// `cargo xtask test` builds and serves: once at the root, once under a sub-path. The
// `perf` project is `cargo xtask bench`'s alone (`--project perf`); the test command
// runs the other three.
import { defineConfig } from "@playwright/test";

const chromium = process.env.SWAPLAB_CHROMIUM || "/usr/bin/chromium";
const rootUrl = process.env.SWAPLAB_URL;
const subpathUrl = process.env.SWAPLAB_SUBPATH_URL;
if (!rootUrl || !subpathUrl) {
  throw new Error("Run the e2e tests with `cargo xtask test`: it builds and serves the site.");
}

export default defineConfig({
  testDir: ".",
  // `cargo xtask bench` points this elsewhere so it never clears a test run's artifacts.
  outputDir: process.env.SWAPLAB_E2E_OUTPUT || "results/artifacts",
  timeout: 30_000,
  expect: { timeout: 5_000 },
  fullyParallel: true,
  workers: 2,
  retries: 0,
  reporter: [["list"], ["json"]],
  use: {
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
      ],
    },
  },
  projects: [
    { name: "root", testIgnore: /(subpath|budgets|perf)\.spec/, use: { baseURL: rootUrl } },
    { name: "subpath", testMatch: /subpath\.spec/, use: { baseURL: subpathUrl } },
    // Timings are taken last, with nothing else running in the browser.
    { name: "budgets", testMatch: /budgets\.spec/, dependencies: ["root", "subpath"], use: { baseURL: rootUrl } },
    // BENCHMARKS.md's browser figures, for `cargo xtask bench` only.
    { name: "perf", testMatch: /perf\.spec/, use: { baseURL: rootUrl } },
  ],
});
