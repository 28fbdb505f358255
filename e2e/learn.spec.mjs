// The chapters and the exercises as a reader uses them: reading by keyboard only,
// running a widget and taking it to the playground, solving an exercise by typing the
// fix, and finding the progress still there after a reload.
import { test, expect } from "@playwright/test";
import { markDocument, open, sameDocument, shot, watchErrors } from "./helpers.mjs";

test("chapter 1 reads to the end by keyboard alone, and → turns the page", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "learn/the-agent");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("The agent before the swap");
  // Page Down until the end of the chapter is on screen, as a reader would.
  const atEnd = () =>
    page.evaluate(() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2);
  let presses = 0;
  while (!(await atEnd())) {
    await page.keyboard.press("PageDown");
    presses += 1;
    expect(presses, "the chapter never ends").toBeLessThan(80);
  }
  expect(presses).toBeGreaterThan(2);
  await expect(page.getByRole("navigation", { name: "Chapter navigation" })).toBeInViewport();

  // Tab reaches the "Next" link; Enter follows it.
  let focused = "";
  for (let i = 0; i < 200 && !focused.includes("Next"); i += 1) {
    await page.keyboard.press("Tab");
    focused = await page.evaluate(() => document.activeElement?.textContent ?? "");
  }
  expect(focused).toContain("Next");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/learn\/the-swap$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("What the swap changes");
  // The new chapter starts at its top, with focus at the start of the content.
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");

  // ← and → move between chapters.
  await page.keyboard.press("ArrowRight");
  await expect(page).toHaveURL(/\/learn\/what-survives$/);
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await expect(page).toHaveURL(/\/learn\/the-agent$/);
  watch.check();
});

test("every heading has an anchor, and a link to one lands on it", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "learn/where-ids-come-from#the-attack");
  const heading = page.locator("h2#the-attack");
  await expect(heading).toBeInViewport();
  const anchor = heading.locator("a.heading-anchor");
  await expect(anchor).toHaveAttribute("href", /\/learn\/where-ids-come-from#the-attack$/);
  // The table of contents lists the chapter's sections.
  await expect(page.locator(".chapter-nav .toc a", { hasText: "The trust boundary" })).toBeVisible();
  watch.check();
});

test("a link to another chapter's section lands on it once that chapter has arrived", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "learn/limits");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await markDocument(page);
  // Chapter 7 has not been fetched yet in this page: its headings come after the click.
  await page.locator('article a[href$="/learn/check-your-swap#what-the-review-checks"]').first().click();
  await expect(page).toHaveURL(/\/learn\/check-your-swap#what-the-review-checks$/);
  await expect(page.locator("h2#what-the-review-checks")).toBeInViewport();
  expect(await sameDocument(page)).toBe(true);
  watch.check();
});

test.describe("a chapter fetched from the site", () => {
  // No service worker: its cache would answer before the route below could fail.
  test.use({ serviceWorkers: "block" });

  test("says so when it cannot load, retries, and comes back from memory", async ({ page }) => {
    // The chapter page fetches chapters/NN-slug.md beside index.html; fail that file,
    // first as a dropped connection, then as a missing file, then let it through late.
    let answer = "abort";
    const requested = [];
    await page.route("**/chapters/*.md", async (route) => {
      requested.push(new URL(route.request().url()).pathname);
      if (answer === "abort") return route.abort("internetdisconnected");
      if (answer === "404") return route.fulfill({ status: 404, contentType: "text/plain", body: "Not found.\n" });
      await new Promise((resolve) => setTimeout(resolve, 500));
      return route.continue();
    });
    // A chapter opened directly carries its own text (the prerendered page); one the
    // reader goes to inside the app is fetched.
    await open(page, "learn");
    await page.locator(".chapter-list").getByRole("link", { name: "What the swap changes" }).click();
    const failed = page.locator(".chapter-failed");
    await expect(failed).toHaveAttribute("role", "alert");
    await expect(failed).toContainText("“What the swap changes” could not be loaded");
    await expect(failed).toContainText("Failed to fetch");
    // Never a blank page: the chapter list, the number and the neighbours stay.
    await expect(page).toHaveTitle("What the swap changes — Swap Lab");
    await expect(page.locator(".chapter-number")).toHaveText("Chapter 2");
    await expect(page.getByRole("navigation", { name: "Chapter navigation" })).toContainText("The agent before the swap");
    await expect(page.getByRole("heading", { level: 1 })).toHaveCount(0);
    expect(requested).toEqual([expect.stringMatching(/\/chapters\/02-the-swap\.md$/)]);

    answer = "404";
    await failed.getByRole("button", { name: "Try again" }).click();
    await expect(failed).toContainText("HTTP 404");

    answer = "continue";
    await failed.getByRole("button", { name: "Try again" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Loading the chapter…" })).toBeVisible();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("What the swap changes");
    await expect(failed).toHaveCount(0);
    await expect(page.locator(".widget").first()).toBeVisible();
    expect(requested).toHaveLength(3);

    // Away and back: the chapter comes from memory, with no request and no waiting.
    answer = "abort";
    await page.getByRole("link", { name: "← Previous" }).click();
    await expect(page).toHaveURL(/\/learn\/the-agent$/);
    await expect(page.locator(".chapter-failed")).toBeVisible();
    await page.goBack();
    await expect(page).toHaveURL(/\/learn\/the-swap$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("What the swap changes");
    await expect(page.locator(".chapter-loading, .chapter-failed")).toHaveCount(0);
    expect(requested).toHaveLength(4);
  });
});

test("a conversation widget runs, changes policy, and opens in the playground", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "learn/what-survives");
  const widget = page.locator(".widget-conversation").first();
  await widget.scrollIntoViewIfNeeded();
  // It waits for the reader.
  await expect(widget.locator(".transcript, .model-call")).toHaveCount(0);
  await widget.getByRole("button", { name: "▶ Run" }).click();
  await expect(widget).toContainText("Hello, Sam Rivera here");
  await expect(widget).toContainText(/list_open_tickets\s*\{"contact_id": "702"\}/);
  // The confused model passes the id Sam names: Dana's tickets come back.
  await widget.getByRole("radio", { name: "confused" }).check();
  await expect(widget).toContainText(/list_open_tickets\s*\{"contact_id": "701"\}/);
  await expect(widget).toContainText("Invoice 4471 shows the wrong VAT rate");
  await shot(page, testInfo, "widget-run");

  await widget.getByRole("link", { name: /Open in playground/ }).click();
  await expect(page).toHaveURL(/\/play\?example=tutorial&tab=conversation&policy=/);
  await expect(page.getByRole("tab", { name: /Conversation/ })).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("#result-panel")).toContainText("Hello, Sam Rivera here");
  watch.check();
});

test("a review widget's evidence opens the file at its line in the playground", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "learn/where-ids-come-from");
  const widget = page.locator(".widget-review").first();
  await widget.scrollIntoViewIfNeeded();
  await expect(widget.locator(".verdict")).toContainText("checks fail");
  const place = widget.locator("button.place", { hasText: "mcp_crm_server.py" }).first();
  const label = await place.textContent();
  await place.click();
  await expect(page).toHaveURL(/\/play\?example=/);
  await expect(page.locator(".editor-bar")).toContainText("scripts/mcp_crm_server.py");
  const line = Number(label.match(/:(\d+)/)[1]);
  const caretLine = await page.locator("textarea.code").evaluate((area) =>
    area.value.slice(0, area.selectionStart).split("\n").length,
  );
  expect(caretLine).toBe(line);
  // The caret is there for typing, as when the same link is opened on its own: the
  // frame's move to a new page leaves the focus where the playground put it.
  await expect(page.locator("textarea.code")).toBeFocused();
  await page.keyboard.type("#here");
  await expect(page.locator("textarea.code")).toHaveValue(/#here/);
  watch.check();
});

test("chapters with widgets, looked at in both themes and on a phone", async ({ browser }, testInfo) => {
  for (const [name, options] of [
    ["chapter-light", { colorScheme: "light", viewport: { width: 1280, height: 900 } }],
    ["chapter-dark", { colorScheme: "dark", viewport: { width: 1280, height: 900 } }],
    ["chapter-phone", { colorScheme: "light", viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
  ]) {
    const context = await browser.newContext({ ...options, baseURL: testInfo.project.use.baseURL });
    const page = await context.newPage();
    const watch = watchErrors(page);
    await open(page, "learn/where-ids-come-from");
    const run = page.locator(".widget-trace").first().getByRole("button", { name: "▶ Run" });
    await run.click();
    await expect(page.locator(".widget-trace").first()).toContainText("became the model's choice");
    // Nothing on the page is wider than the screen.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name}: the page scrolls sideways`).toBeLessThanOrEqual(0);
    await shot(page, testInfo, name);
    watch.check();
    await context.close();
  }
});

/** Selects `find` in the editor and types `replacement` over it, as a reader would. */
async function typeOver(page, find, replacement) {
  const area = page.locator("textarea.code");
  await area.click();
  const found = await area.evaluate((el, find) => {
    const at = el.value.indexOf(find);
    if (at >= 0) el.setSelectionRange(at, at + find.length);
    return at;
  }, find);
  expect(found, `${find} is in the editor`).toBeGreaterThanOrEqual(0);
  await page.keyboard.type(replacement);
}

test("a fix-it exercise is solved by typing the fix, and stays solved after a reload", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "exercises/03-structured-result");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Give the lookup its output schema back");
  const checks = page.locator(".goal-checks");
  await expect(checks.locator("li.fail")).not.toHaveCount(0);
  await expect(page.locator(".editor-pane .file-name")).toHaveText("server/scripts/mcp_crm_server.py");

  // A hint first; the solution only after every hint.
  await expect(page.getByRole("button", { name: "Show the solution" })).toHaveCount(0);
  await page.getByRole("button", { name: /Show a hint \(1 of/ }).click();
  await expect(page.locator(".hint")).toHaveCount(1);

  await typeOver(page, "-> dict:", "-> CrmResult:");
  await expect(checks.locator("li.fail")).toHaveCount(0);
  await expect(checks.locator("li.pass")).toHaveCount(3);
  await expect(page.locator(".exercise-done")).toContainText("Done");
  await shot(page, testInfo, "exercise-done");

  // The work and the progress survive a reload, once both are stored (the save waits for
  // a pause in typing, so wait for the store, not for a fixed time).
  const id = await page.locator("[data-exercise]").getAttribute("data-exercise");
  const stored = (key) => page.evaluate((k) => localStorage.getItem(k) ?? "", key);
  await expect.poll(() => stored(`swaplab.exercise.v1.${id}`)).toContain("-> CrmResult:");
  await expect.poll(() => stored("swaplab.progress.v1")).toContain(id);
  await page.reload();
  await expect(page.locator(".goal-checks li.fail")).toHaveCount(0);
  await expect(page.locator("textarea.code")).toHaveValue(/find_contact_by_email\(email: str\) -> CrmResult:/);
  await open(page, "exercises");
  await expect(page.locator('li[data-exercise="03-structured-result"]')).toHaveClass(/done/);
  await expect(page.locator(".exercise-tally")).toContainText("1 of");
  watch.check();
});

test("the solution appears beside the reader's work as a diff, never over it", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "exercises/02-restore-the-confirmation");
  const area = page.locator("textarea.code");
  const before = await area.inputValue();
  for (let i = 0; i < 5; i += 1) {
    const hint = page.getByRole("button", { name: /Show a hint/ });
    if ((await hint.count()) === 0) break;
    await hint.click();
  }
  await page.getByRole("button", { name: "Show the solution" }).click();
  const solution = page.locator(".exercise-solution");
  await expect(solution).toContainText("yours → solution");
  await expect(solution.locator("tr.added")).toContainText("add_timeline_note");
  await expect(area).toHaveValue(before);
  await expect(page.locator(".goal-checks li.fail")).not.toHaveCount(0);
  await shot(page, testInfo, "exercise-solution");
  watch.check();
});

test("a find-it exercise is solved by pointing at the line", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "x/1");
  await expect(page).toHaveURL(/\/exercises\/01-point-at-the-leak$/);
  const area = page.locator("textarea.code");
  const line = async (n) => {
    await area.click();
    await area.evaluate((el, n) => {
      const at = el.value.split("\n").slice(0, n - 1).join("\n").length + (n > 1 ? 1 : 0);
      el.setSelectionRange(at, at);
    }, n);
    await page.keyboard.press("End");
  };
  await line(1);
  await page.getByRole("button", { name: "This line" }).click();
  await expect(page.locator(".goal-checks")).toContainText("is not it");
  const target = await area.evaluate((el) =>
    el.value.split("\n").findIndex((l) => l.includes("async def add_timeline_note(")) + 1,
  );
  await line(target);
  await page.getByRole("button", { name: "This line" }).click();
  await expect(page.locator(".exercise-done")).toContainText("Done");
  watch.check();
});
