// The site's frame: every route renders real content with no errors, navigation works,
// and the theme follows the system until the reader picks one.
import { test, expect } from "@playwright/test";
import { markDocument, open, sameDocument, shot, watchErrors } from "./helpers.mjs";

const routes = [
  { path: "", name: "home", heading: /drop-in replacement/, text: /Where to start/ },
  { path: "learn", name: "learn", heading: "Chapters", text: /The agent before the swap/ },
  { path: "learn/the-agent", name: "chapter", heading: "The agent before the swap", text: /project\.contact_id/ },
  { path: "play", name: "play", heading: /Playground/, text: /Before the swap/ },
  { path: "examples", name: "examples", heading: "Examples", text: /The tutorial's swap/ },
  { path: "no/such/page", name: "not-found", heading: "There is no page here", text: /the playground/ },
];

for (const route of routes) {
  test(`/${route.path} renders its content without errors`, async ({ page }, testInfo) => {
    const watch = watchErrors(page);
    await open(page, route.path);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(route.heading);
    await expect(page.locator("main")).toContainText(route.text);
    await expect(page).toHaveTitle(/Swap Lab/);
    await shot(page, testInfo, route.name);
    watch.check();
  });
}

test("the home page shows the swap in one picture, taken from the example's files", async ({ page }) => {
  await open(page, "");
  const picture = page.locator(".one-picture");
  await expect(picture.locator("figure").first()).toContainText('context.memory.get("project.contact_id")');
  await expect(picture.locator("figure").last()).toContainText("async def list_open_tickets(contact_id: str) -> CrmResult:");
});

test("the header navigates between sections without reloading", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "");
  await markDocument(page);
  const nav = page.getByRole("navigation", { name: "Sections" });

  await nav.getByRole("link", { name: "Learn" }).click();
  await expect(page).toHaveURL(/\/learn$/);
  await expect(nav.getByRole("link", { name: "Learn" })).toHaveClass(/current/);

  await page.getByRole("link", { name: "The agent before the swap" }).click();
  await expect(page).toHaveURL(/\/learn\/the-agent$/);
  await expect(page).toHaveTitle("The agent before the swap — Swap Lab");

  await nav.getByRole("link", { name: "Playground" }).click();
  await expect(page).toHaveURL(/\/play$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Playground");

  await page.getByRole("link", { name: "Swap Lab" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("drop-in replacement");
  expect(await sameDocument(page)).toBe(true);
  watch.check();
});

test("a chapter's link to the playground stays inside the app", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "learn/the-agent");
  await markDocument(page);
  await page.getByRole("link", { name: "Open these files in the playground" }).click();
  await expect(page).toHaveURL(/\/play(\?example=tutorial)?$/);
  await expect(page.getByRole("navigation", { name: "Files" })).toBeVisible();
  expect(await sameDocument(page)).toBe(true);
  watch.check();
});

test("\"Skip to content\" moves the focus to the page's content and stays on the page", async ({ page }) => {
  const watch = watchErrors(page);
  for (const where of ["learn/the-agent", "examples"]) {
    await open(page, where);
    await markDocument(page);
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expect(skip).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.locator("main")).toBeFocused();
    expect(new URL(page.url()).pathname).toMatch(new RegExp(`/${where}$`));
    expect(await sameDocument(page)).toBe(true);
  }
  watch.check();
});

test("Back and Forward return to where the reader was on each page", async ({ page }) => {
  const watch = watchErrors(page);
  const scrollY = () => page.evaluate(() => Math.round(window.scrollY));
  await open(page, "learn/the-agent");
  await markDocument(page);
  // A link in the middle of the chapter, in the middle of the screen: clicking it does
  // not scroll first.
  const link = page.getByRole("link", { name: "Open these files in the playground" });
  await link.evaluate(
    (a) => new Promise((done) => {
      addEventListener("scroll", done, { once: true });
      a.scrollIntoView({ block: "center" });
    }),
  );
  const middle = await scrollY();
  expect(middle).toBeGreaterThan(300);

  // A link starts the next page at its top...
  await link.click();
  await expect(page).toHaveURL(/\/play(\?example=tutorial)?$/);
  await expect(page.getByRole("navigation", { name: "Files" })).toBeVisible();
  await expect.poll(scrollY).toBe(0);

  // ...and Back puts the chapter where the reader left it, as a browser does.
  await page.goBack();
  await expect(page).toHaveURL(/\/learn\/the-agent$/);
  await expect.poll(scrollY).toBe(middle);

  // Forward too, for a page left with Back.
  await page.getByRole("navigation", { name: "Chapter navigation" }).getByRole("link", { name: /Next/ }).click();
  await expect(page).toHaveURL(/\/learn\/the-swap$/);
  await expect(page.locator("article .prose h2").first()).toBeVisible();
  await expect.poll(scrollY).toBe(0);
  // As a reader scrolls: the browser reports the scroll before anything else happens.
  await page.evaluate(
    () => new Promise((done) => {
      addEventListener("scroll", done, { once: true });
      window.scrollTo(0, 700);
    }),
  );
  await expect.poll(scrollY).toBe(700);
  await page.goBack();
  await expect(page).toHaveURL(/\/learn\/the-agent$/);
  await page.goForward();
  await expect(page).toHaveURL(/\/learn\/the-swap$/);
  await expect.poll(scrollY).toBe(700);
  expect(await sameDocument(page)).toBe(true);
  watch.check();
});

test("a reload keeps the reader's place on the page, and Back after it returns to the page before", async ({ page }) => {
  const watch = watchErrors(page);
  const scrollY = () => page.evaluate(() => Math.round(window.scrollY));
  const scrollTo = (y) =>
    page.evaluate(
      (y) => new Promise((done) => {
        addEventListener("scroll", done, { once: true });
        window.scrollTo(0, y);
      }),
      y,
    );
  // A page the app draws at once...
  await open(page, "examples");
  await scrollTo(900);
  // Followed where the reader is: a click would first scroll the header into view,
  // and a reader who scrolls back up is then at the top.
  await page
    .getByRole("navigation", { name: "Sections" })
    .getByRole("link", { name: "Learn" })
    .evaluate((a) => a.click());
  await expect(page).toHaveURL(/\/learn$/);
  await page.getByRole("link", { name: /The agent/ }).first().click();
  await expect(page).toHaveURL(/\/learn\/the-agent$/);
  await expect(page.locator("article .prose h2").first()).toBeVisible();
  // ...and a chapter, whose text arrives after the page opens: a reload (or a phone
  // bringing a discarded tab back) puts the reader where they were, as a browser does.
  await scrollTo(1500);
  await page.reload();
  await expect(page.locator("article .prose h2").first()).toBeVisible();
  await expect.poll(scrollY).toBe(1500);
  // The places of the visit before the reload are kept too.
  await page.goBack();
  await page.goBack();
  await expect(page).toHaveURL(/\/examples$/);
  await expect.poll(scrollY).toBe(900);
  // A new visit to the same address, typed rather than reloaded, starts at the top.
  await open(page, "learn");
  await open(page, "examples");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect.poll(scrollY).toBe(0);
  watch.check();
});

test("a link to the page already on screen adds no history entry, as in a browser", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "");
  await markDocument(page);
  const nav = page.getByRole("navigation", { name: "Sections" });
  await nav.getByRole("link", { name: "Learn" }).click();
  await expect(page).toHaveURL(/\/learn$/);
  const entries = await page.evaluate(() => history.length);
  await nav.getByRole("link", { name: "Learn" }).click();
  await expect(page).toHaveURL(/\/learn$/);
  expect(await page.evaluate(() => history.length)).toBe(entries);
  // One Back leaves the page, as it would after the same clicks on a plain site.
  await page.goBack();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("drop-in replacement");
  expect(await sameDocument(page)).toBe(true);
  watch.check();
});

test("the header marks its section as current and only the page itself as the current page", async ({ page }) => {
  const nav = page.getByRole("navigation", { name: "Sections" });
  const learn = nav.getByRole("link", { name: "Learn" }).locator("[aria-current]");
  await open(page, "learn");
  await expect(learn).toHaveAttribute("aria-current", "page");
  await open(page, "learn/the-agent");
  // The chapter is the page; the header's Learn is the section it is in.
  await expect(learn).toHaveAttribute("aria-current", "true");
  await expect(page.locator('[aria-current="page"]')).toHaveText(["The agent before the swap"]);
});

test("the chapter's table of contents jumps within the page", async ({ page }) => {
  await open(page, "learn/the-agent");
  await page.getByRole("complementary").getByRole("link", { name: "Where the ticket tool gets its id" }).click();
  await expect(page).toHaveURL(/\/learn\/the-agent#where-the-ticket-tool-gets-its-id$/);
  await expect(page.getByRole("heading", { name: "Where the ticket tool gets its id" })).toBeInViewport();
});

test("an unknown chapter lists the real ones", async ({ page }) => {
  await open(page, "learn/not-a-chapter");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("No such chapter");
  await expect(page.getByRole("link", { name: "The agent before the swap" })).toBeVisible();
});

test("a short link to no exercise says so, in the page and in its title", async ({ page }) => {
  await open(page, "exercises");
  await open(page, "x/99");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("No such exercise");
  await expect(page).toHaveTitle("Exercise not found — Swap Lab");
});

test("the theme follows the system, and the toggle's choice survives a reload", async ({ browser }, testInfo) => {
  const context = await browser.newContext({ colorScheme: "dark" });
  const page = await context.newPage();
  await open(page, "");
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(await background()).toBe("rgb(17, 19, 23)");
  await shot(page, testInfo, "home-dark");

  const toggle = page.getByRole("button", { name: /Theme:/ });
  await expect(toggle).toHaveAccessibleName("Theme: system");
  await toggle.click();
  await expect(toggle).toHaveAccessibleName("Theme: light");
  expect(await background()).toBe("rgb(251, 251, 250)");
  await shot(page, testInfo, "home-light-on-dark-system");

  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  expect(await background()).toBe("rgb(251, 251, 250)");

  await page.getByRole("button", { name: /Theme:/ }).click();
  await expect(page.getByRole("button", { name: /Theme:/ })).toHaveAccessibleName("Theme: dark");
  await page.getByRole("button", { name: /Theme:/ }).click();
  await expect(page.getByRole("button", { name: /Theme:/ })).toHaveAccessibleName("Theme: system");
  await expect(page.locator("html")).not.toHaveAttribute("data-theme", /.+/);
  await context.close();
});

test("the examples page opens an example in the playground", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "examples");
  const card = page.locator("[data-example=tutorial]");
  await expect(card).toContainText(/changed, \d+ added, \d+ removed by the swap/);
  await card.getByRole("link", { name: "Open in the playground" }).click();
  await expect(page).toHaveURL(/\/play\?example=tutorial$/);
  await expect(page.locator(".example-title")).toContainText("The tutorial's swap");
  watch.check();
});

test("an example whose agent does not start shows its attack as not tested, not as 0 leaks", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "examples");
  for (const id of ["headers-config", "renamed-import", "stdio-server"]) {
    const verdicts = page.locator(`[data-example=${id}] .expected`);
    await expect(verdicts.locator(".not-tested")).toHaveText("attack not tested after the swap");
    await expect(verdicts).toContainText("the agent does not start");
    await expect(verdicts).not.toContainText("leaks after the swap");
  }
  await expect(page.locator("[data-example=tutorial] .expected li").filter({ hasText: "after the swap" })).toHaveText("2 leaks after the swap");
  watch.check();
});

test.describe("on a phone-sized screen", () => {
  test.use({ viewport: { width: 390, height: 844 } });
  for (const route of routes) {
    test(`/${route.path} fits the width without sideways scrolling`, async ({ page }, testInfo) => {
      await open(page, route.path);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, "the page is wider than the screen").toBeLessThanOrEqual(0);
      await expect(page.getByRole("link", { name: "Swap Lab" })).toBeVisible();
      if (route.name === "play" || route.name === "chapter") await shot(page, testInfo, `phone-${route.name}`);
    });
  }
});
