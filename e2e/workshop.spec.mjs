// The workshop pages as a presenter, a facilitator and a participant use them: the
// presenter view moves by keyboard and keeps its step across a reload, its timer stands
// still when paused; the exercise index gives each exercise a QR code of its short link;
// the receipts page reads pasted receipts into a table and names the ones it cannot read.
import { test, expect } from "@playwright/test";
import { markDocument, open, sameDocument, shot, watchErrors } from "./helpers.mjs";

// Made by swaplab_content::receipt::encode_receipt and pinned by
// crates/swaplab-content/tests/it/receipt.rs (`the_codes_the_end_to_end_test_pastes_are_stable`).
const ADA = "SL1-043M-2S31-4166-YXK5-DHGP-6SDE-D4"; // Ada Lovelace: exercises 1, 2, 3
const GRACE = "SL1-054M-EWK1-CDJJ-0J3F-E1R6-AWPS-P4"; // Grace Hopper: exercises 1, 4, 7
const TYPO = ADA.replace("YXK5", "YXK6"); // one character mistyped

/** A screenshot in the light theme, then in the dark one. */
async function shots(page, testInfo, name) {
  await page.emulateMedia({ colorScheme: "light" });
  await shot(page, testInfo, `${name}-light`);
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.locator("body")).toHaveCSS("background-color", "rgb(17, 19, 23)");
  await shot(page, testInfo, `${name}-dark`);
  await page.emulateMedia({ colorScheme: "light" });
}

test("the presenter view moves by keyboard and keeps its step across a reload", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "workshop");
  const steps = page.getByRole("navigation", { name: "Steps" }).getByRole("listitem");
  const count = await steps.count();
  expect(count, "the plan has steps to move between").toBeGreaterThanOrEqual(3);
  const heading = page.locator("#current-step-title");
  const current = page.locator('.step-list [aria-current="step"]');
  await expect(page).toHaveURL(/\?step=1$/);
  await expect(current.locator(".step-no")).toHaveText("1");
  const titles = await page.locator(".step-list .step-title").allTextContents();
  await expect(heading).toHaveText(titles[0]);

  await page.keyboard.press("ArrowRight");
  await expect(page).toHaveURL(/\?step=2$/);
  await expect(heading).toHaveText(titles[1]);
  await page.keyboard.press("PageDown");
  await expect(page).toHaveURL(/\?step=3$/);
  await page.keyboard.press("PageUp");
  await expect(page).toHaveURL(/\?step=2$/);
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await expect(page).toHaveURL(/\?step=1$/);
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await expect(page).toHaveURL(/\?step=3$/);
  await expect(heading).toHaveText(titles[2]);

  await page.reload();
  await expect(page).toHaveURL(/\?step=3$/);
  await expect(heading).toHaveText(titles[2]);
  await expect(current.locator(".step-no")).toHaveText("3");

  // A step past the end opens the last one; clicking a step in the list goes there.
  await open(page, `workshop?step=${count + 5}`);
  await expect(current.locator(".step-no")).toHaveText(String(count));
  await steps.first().getByRole("button").click();
  await expect(page).toHaveURL(/\?step=1$/);

  // The timer runs while started and stands still while paused.
  const reading = page.locator(".step-timer .elapsed");
  await expect(reading).toHaveText("0:00");
  await page.getByRole("button", { name: "Start", exact: true }).click();
  await expect(reading).not.toHaveText("0:00", { timeout: 3_000 });
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  const paused = await reading.textContent();
  await page.waitForTimeout(1_600);
  await expect(reading).toHaveText(paused);
  await expect(page.getByRole("button", { name: "Resume", exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Reset", exact: true }).click();
  await expect(reading).toHaveText("0:00");

  // Printed, the page lists every step's notes.
  await page.emulateMedia({ media: "print" });
  await expect(page.locator(".print-notes .print-step")).toHaveCount(count);
  await expect(page.locator(".presenter-grid")).toBeHidden();
  await shot(page, testInfo, "workshop-print");
  await page.emulateMedia({ media: "screen" });
  await expect(page.locator(".print-notes")).toBeHidden();

  await shots(page, testInfo, "workshop");
  watch.check();
});

test("the presenter keeps its step when the workshop's own links are followed", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "workshop");
  const current = page.locator('.step-list [aria-current="step"] .step-no');
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await expect(page).toHaveURL(/\/workshop\?step=4$/);
  // The header's "Workshop" (the presenter view already on screen): the step shown and
  // the step in the address stay the same, so a reload or Back keeps the place.
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Workshop" }).click();
  await expect(current).toHaveText("4");
  await expect(page).toHaveURL(/\/workshop\?step=4$/);
  await page.getByRole("navigation", { name: "Workshop" }).getByRole("link", { name: "Receipts" }).click();
  await expect(page).toHaveURL(/\/workshop\/receipts$/);
  await page.goBack();
  await expect(page).toHaveURL(/\/workshop\?step=4$/);
  await expect(current).toHaveText("4");
  watch.check();
});

test("the exercise index gives each exercise a QR code of its short link", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "workshop/exercises");
  const cards = page.locator(".qr-card");
  await expect(cards.first()).toBeVisible();
  const count = await cards.count();
  expect(count).toBeGreaterThanOrEqual(1);
  const base = await page.evaluate(() => document.baseURI);
  const numbers = [];
  for (let i = 0; i < count; i++) {
    const card = cards.nth(i);
    const number = Number((await card.locator(".qr-number").textContent()).replace("Exercise ", ""));
    numbers.push(number);
    const url = new URL(`x/${number}`, base).href;
    const link = card.locator(".short-link a");
    await expect(link).toHaveText(url);
    await expect(link).toHaveAttribute("href", url);

    const svg = card.locator("svg.qr");
    await expect(svg).toHaveCount(1);
    await expect(svg).toHaveAttribute("role", "img");
    await expect(svg).toHaveAttribute("aria-label", `QR code for ${url}`);
    // A QR code is 21 + 4k modules square (versions 1 to 40), drawn inside a quiet zone
    // of 4; its finder patterns start the first row with seven dark modules at each end.
    const viewBox = await svg.getAttribute("viewBox");
    const [, , width, height] = viewBox.split(" ").map(Number);
    const modules = width - 8;
    expect(height).toBe(width);
    expect(modules >= 21 && modules <= 177 && (modules - 21) % 4 === 0, `${modules} modules`).toBe(true);
    await expect(svg).toHaveAttribute("data-modules", String(modules));
    const d = await svg.locator("path").getAttribute("d");
    expect(d.startsWith("M4,4h7v1h-7z")).toBe(true);
    expect(d).toContain(`M${modules - 3},4h7v1h-7z`);
    const box = await svg.boundingBox();
    expect(box.width, "large enough to scan from a slide").toBeGreaterThanOrEqual(180);
  }
  expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  await shots(page, testInfo, "workshop-exercises");

  // Printed, each exercise has a sheet of its own.
  await page.emulateMedia({ media: "print" });
  await shot(page, testInfo, "workshop-exercises-print");
  const pdf = (await page.pdf({ format: "A4" })).toString("latin1");
  expect(pdf.match(/\/Type\s*\/Page\b(?!s)/g)?.length, "pages printed").toBe(count);
  await page.emulateMedia({ media: "screen" });

  // The short link leads to its exercise, inside the app (the page is not loaded again),
  // and Back returns to the index: the short link itself leaves no history entry.
  await markDocument(page);
  await cards.first().locator(".short-link a").click();
  await expect(page).toHaveURL(/\/exercises\/\d+-[a-z0-9-]+$/);
  await expect(page.locator(".exercise-page h1")).toBeVisible();
  expect(await sameDocument(page)).toBe(true);
  await page.goBack();
  await expect(page).toHaveURL(/\/workshop\/exercises$/);
  watch.check();
});

test("the receipts page reads pasted receipts into a table and keeps them across a reload", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "workshop/receipts");
  const input = page.getByLabel("Pasted receipts");
  await input.fill(`Ada Lovelace  10:32\n${ADA}\n\nGrace: “${GRACE}”, thanks!\n${TYPO}\n`);

  await expect(page.locator(".receipts-summary")).toHaveText(
    "2 receipts read, from 2 participants; 1 could not be read.",
  );
  const table = page.locator("table.receipts-table");
  const headers = (await table.locator("thead th").allTextContents()).map((t) => t.trim());
  expect(headers[0]).toBe("Participant");
  const doneIn = async (name) => {
    const row = table.locator("tbody tr", { has: page.locator("th", { hasText: name }) });
    const cells = await row.locator("td").evaluateAll((tds) => tds.map((td) => td.classList.contains("done")));
    return cells.flatMap((done, i) => (done ? [headers[i + 1]] : []));
  };
  expect(await doneIn("Ada Lovelace")).toEqual(["Exercise 1", "Exercise 2", "Exercise 3"]);
  expect(await doneIn("Grace Hopper")).toEqual(["Exercise 1", "Exercise 4", "Exercise 7"]);
  const counts = await table.locator("tfoot td.count").allTextContents();
  expect(counts[headers.indexOf("Exercise 1") - 1]).toBe("2");
  expect(counts[headers.indexOf("Exercise 4") - 1]).toBe("1");

  const errors = page.locator(".receipt-errors li");
  await expect(errors).toHaveCount(1);
  await expect(errors).toContainText("Line 5");
  await expect(errors).toContainText(TYPO);
  await expect(errors).toContainText("typo");
  await expect(page.locator(".receipts-skipped summary")).toHaveText("1 line without a receipt");
  await shots(page, testInfo, "workshop-receipts");

  await page.reload();
  await expect(page.getByLabel("Pasted receipts")).toHaveValue(new RegExp(GRACE));
  await expect(table.locator("tbody tr")).toHaveCount(2);

  await page.getByRole("button", { name: "Clear", exact: true }).click();
  await expect(table).toHaveCount(0);
  expect(await page.evaluate(() => localStorage.getItem("swaplab.receipts.v1"))).toBeNull();
  watch.check();
});

test("a participant's receipt from an exercise page reads on the receipts page", async ({ browser }, testInfo) => {
  const context = await browser.newContext();
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const page = await context.newPage();
  const watch = watchErrors(page);
  await open(page, "workshop/exercises");
  const first = page.locator(".qr-card").first();
  const id = await first.getAttribute("data-exercise");
  const number = Number(id.split("-")[0]);
  await page.evaluate((id) => {
    localStorage.setItem("swaplab.progress.v1", `swaplab-progress 1\n${id} done 0 -\n`);
  }, id);

  await open(page, "exercises");
  const box = page.locator(".receipt-box");
  await expect(box).toContainText(`Exercise ${number} done`);
  await box.getByLabel("Your name").fill("Katherine Johnson");
  await box.getByRole("button", { name: "Copy receipt" }).click();
  await expect(box.locator(".receipt-status")).toHaveText(/Copied|Selected/);
  const code = await box.getByLabel("Receipt code").inputValue();
  expect(code).toMatch(/^SL1-[0-9A-Z-]+$/);
  await box.scrollIntoViewIfNeeded();
  await shots(page, testInfo, "receipt-box");

  await open(page, "workshop/receipts");
  await page.getByLabel("Pasted receipts").fill(`  "${code.toLowerCase()}"  `);
  const row = page.locator("table.receipts-table tbody tr");
  await expect(row).toHaveCount(1);
  await expect(row.locator("th")).toHaveText("Katherine Johnson");
  await expect(row.locator("td.done")).toHaveCount(1);
  watch.check();
  await context.close();
});

test.describe("on a phone-sized screen", () => {
  test.use({ viewport: { width: 390, height: 844 } });
  for (const path of ["workshop", "workshop/exercises", "workshop/receipts"]) {
    test(`/${path} fits the width without sideways scrolling`, async ({ page }, testInfo) => {
      await open(page, path);
      if (path === "workshop/receipts") {
        await page.getByLabel("Pasted receipts").fill(`${ADA}\n${GRACE}\n${TYPO}`);
        await expect(page.locator("table.receipts-table")).toBeVisible();
      }
      // The page's own content; the site header is site.spec.mjs's to check.
      const overflow = await page.evaluate(() => {
        const main = document.querySelector("main");
        return Math.max(main.scrollWidth - main.clientWidth, main.getBoundingClientRect().right - window.innerWidth);
      });
      expect(overflow, "the page is wider than the screen").toBeLessThanOrEqual(0);
      await shot(page, testInfo, `phone-${path.replace("/", "-")}`);
    });
  }
});
