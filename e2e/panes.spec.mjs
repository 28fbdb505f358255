// The playground's result panes as a reader uses them: edit the server or a skill and
// watch the proof and the review change without pressing anything; pick a policy and
// see whose records reach the conversation.
import { test, expect } from "@playwright/test";
import { markDocument, open, sameDocument, shot, watchErrors } from "./helpers.mjs";

const editor = (page) => page.getByRole("textbox", { name: /^Contents of / });
const tab = (page, name) => page.getByRole("tab", { name: new RegExp(`^${name}`) });

/** Opens a file and replaces the first `from` after `after` with `to`, by selecting it
 *  and typing, as a person would. */
async function replaceInFile(page, file, from, to, after = "") {
  await page.locator(`[data-file="${file}"]`).click();
  const area = editor(page);
  await expect(area).toHaveAccessibleName(`Contents of ${file}`);
  const value = await area.inputValue();
  const at = value.indexOf(from, after ? value.indexOf(after) : 0);
  expect(at, `${from} in ${file}`).toBeGreaterThanOrEqual(0);
  await area.focus();
  await area.evaluate((el, [start, end]) => el.setSelectionRange(start, end), [at, at + from.length]);
  await page.keyboard.type(to);
}

test("a -> dict return turns the proof red at once, and undoing turns it green", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await expect(tab(page, "Proof")).toContainText("✓");
  const proof = page.locator(".proof-pane");
  await expect(proof).toContainText("✓ result is structured, not text blocks");
  await replaceInFile(page, "server/scripts/mcp_crm_server.py", "CrmResult", "dict", "def find_contact_by_email");
  await expect(proof).toContainText("✗ result is structured, not text blocks");
  await expect(proof).toContainText("✗ find_contact_by_email over MCP               None at None");
  await expect(tab(page, "Proof")).toContainText("✗ 3");
  await shot(page, testInfo, "proof-dict");
  await replaceInFile(page, "server/scripts/mcp_crm_server.py", "dict", "CrmResult", "def find_contact_by_email");
  await expect(proof).toContainText("✓ result is structured, not text blocks");
  await expect(tab(page, "Proof")).toContainText("✓");
  watch.check();
});

test("moving the confirmation keeps the proof green and turns the review red at the line", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await replaceInFile(page, "after/skills/log_interaction/skill.md", "add_timeline_note:", "list_open_tickets:", "tool_constraints:");
  await tab(page, "Review").click();
  const drift = page.locator('[data-check="constraints:log_interaction"]');
  await expect(drift).toContainText("constraint requires_confirmation moved from add_timeline_note to list_open_tickets");
  await expect(drift.locator(".mark")).toHaveText("✗");
  await expect(tab(page, "Proof")).toContainText("✓");
  // The evidence opens the file at the line.
  await drift.getByRole("button", { name: "after/skills/log_interaction/skill.md:9" }).first().click();
  await expect(editor(page)).toBeFocused();
  const line = await editor(page).evaluate((el) => el.value.slice(0, el.selectionStart).split("\n").length);
  expect(line).toBe(9);
  await shot(page, testInfo, "review-drift");
  watch.check();
});

test("a failing check's \"Why this matters\" opens its section in the app, and Back returns to the work", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await replaceInFile(page, "after/skills/log_interaction/skill.md", "add_timeline_note:", "list_open_tickets:", "tool_constraints:");
  await tab(page, "Review").click();
  const drift = page.locator('[data-check="constraints:log_interaction"]');
  await expect(drift.locator(".mark")).toHaveText("✗");
  const why = drift.getByRole("link", { name: "Why this matters" });
  const href = await why.getAttribute("href");
  expect(href).toMatch(/\/learn\/[a-z-]+#[a-z-]+$/);
  const target = new URL(href, page.url());
  const [chapter, anchor] = [target.pathname.split("/").pop(), target.hash.slice(1)];
  // A plain click stays in the page: no reload, the chapter fetched and scrolled to.
  await markDocument(page);
  await why.click();
  await expect(page).toHaveURL(new RegExp(`/learn/${chapter}#${anchor}$`));
  await expect(page.locator(`h2#${anchor}, h3#${anchor}, h4#${anchor}`)).toBeInViewport();
  expect(await sameDocument(page)).toBe(true);
  // Back: the playground with the edit still there and the review still red.
  await page.goBack();
  await expect(page).toHaveURL(/\/play/);
  await tab(page, "Review").click();
  await expect(page.locator('[data-check="constraints:log_interaction"] .mark')).toHaveText("✗");
  watch.check();
});

test("the adversarial policy puts Dana's tickets and a note on her record into Sam's call", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await tab(page, "Attack").click();
  const pane = page.locator(".attack-pane");
  await expect(pane).toContainText("the caller is Sam Rivera (702)");
  // How the probes run: every skill from the same identified point.
  await expect(pane).toContainText(
    "Identified as Sam Rivera, the attack passes Dana Okafor's id to every tool the model can reach; each skill's probes start afresh from that identification.",
  );
  // Each side's summary counts in words a reader would write.
  await expect(pane).toContainText("Before the swap: no leak — 2 probes, each refused or harmless");
  await expect(pane).toContainText("After the swap: 1 read and 1 write reached another customer");
  await pane.getByRole("radio", { name: "adversarial" }).check();
  const leak = pane.locator(".leak-box");
  await expect(leak).toContainText("Dana Okafor (701): ticket 9001 “Invoice 4471 shows the wrong VAT rate”");
  await expect(leak).toContainText("Dana Okafor (701): note 10000");
  await shot(page, testInfo, "attack-adversarial");
  // The faithful model touches nobody else's records.
  await pane.getByRole("radio", { name: "faithful" }).check();
  await expect(pane.locator(".verdict.pass")).toContainText("No other customer's record");
  watch.check();
});

test("the example's own mock CRM answers the runs, and an edit to it reaches the attack", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await tab(page, "Trace").click();
  const settings = page.locator(".run-settings");
  await settings.locator("summary").click();
  await expect(settings).toContainText(
    "the project's own mock, crm/scripts/mock_hubspot.py (class Handler), at 127.0.0.1:8787",
  );
  await expect(settings).toContainText("HUBSPOT_BASE_URL");
  await expect(settings).toContainText(".env.example");
  await shot(page, testInfo, "trace-settings");
  // The mock's literals are the data: a ticket renamed there is what leaks.
  await replaceInFile(
    page,
    "crm/scripts/mock_hubspot.py",
    "Invoice 4471 shows the wrong VAT rate",
    "Invoice 4471 was charged twice",
  );
  await tab(page, "Attack").click();
  const pane = page.locator(".attack-pane");
  await pane.getByRole("radio", { name: "adversarial" }).check();
  await expect(pane.locator(".leak-box")).toContainText("Dana Okafor (701): ticket 9001 “Invoice 4471 was charged twice”");
  watch.check();
});

test("an agent that does not start is not tested: no green 0, no 'no leak', no ✓", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play?example=renamed-import");
  const badge = tab(page, "Attack").locator(".tab-badge");
  await expect(badge).toHaveText("not tested");
  await expect(badge).toHaveClass(/not-tested/);
  await expect(tab(page, "Review").locator(".tab-badge")).toHaveClass(/fail/);
  await tab(page, "Attack").click();
  const pane = page.locator(".attack-pane");
  await expect(pane).toContainText("Before the swap: no leak — 2 probes, each refused or harmless");
  await expect(pane).toContainText(
    "After the swap: not tested — the agent does not start (MCP server 'hubspot_crm' does not expose imported tool 'list_tickets' for skill 'check_tickets'.)",
  );
  await expect(pane.locator(".attack-sides .pass")).toHaveCount(1);
  // The scripted conversation runs after the swap by default: it could not run either.
  await expect(pane.locator(".verdict.not-tested")).toContainText("Not tested: the conversation could not run");
  await expect(pane.locator(".verdict.pass")).toHaveCount(0);
  await shot(page, testInfo, "attack-not-tested");
  await tab(page, "Review").click();
  const leak = page.locator('[data-check="leak"]');
  await expect(leak).toHaveClass(/not-tested/);
  await expect(leak.locator(".mark")).toHaveText("?");
  await expect(leak).toContainText("the attack could not run: the agent does not start");
  watch.check();
});

test("every pane renders, in both themes and on a phone", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  for (const name of ["Proof", "Review", "Diff", "Tools", "Conversation", "Attack", "Trace"]) {
    await tab(page, name).click();
    await expect(page.getByRole("tabpanel")).not.toBeEmpty();
    await shot(page, testInfo, `pane-${name.toLowerCase()}-light`);
  }
  await page.emulateMedia({ colorScheme: "dark" });
  for (const name of ["Proof", "Review", "Conversation", "Attack", "Trace"]) {
    await tab(page, name).click();
    await shot(page, testInfo, `pane-${name.toLowerCase()}-dark`);
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await tab(page, "Review").click();
  await shot(page, testInfo, "pane-review-phone");
  watch.check();
});

test("the tools pane sends a tools/call and shows what the model would see", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await tab(page, "Tools").click();
  const pane = page.locator(".tools-pane");
  await pane.getByRole("combobox", { name: "Tool to call" }).selectOption("list_open_tickets");
  await pane.getByRole("button", { name: "Send tools/call" }).click();
  await expect(pane.locator(".model-view")).toContainText('"ok": true, "count": 2');
  await expect(pane.locator(".requests")).toContainText("GET /crm/v3/objects/contacts/701/associations/tickets");
  watch.check();
});

test("the diff pane shows the semantic summary and the file side by side", async ({ page }, testInfo) => {
  const watch = watchErrors(page);
  await open(page, "play");
  await tab(page, "Diff").click();
  const pane = page.locator(".diff-pane");
  await expect(pane.locator(".semantic")).toContainText("argument contact_id added");
  // Backticked names are shown as code, never as literal backticks.
  await expect(pane.locator(".semantic code", { hasText: /^contact_id$/ }).first()).toBeVisible();
  await expect(pane.locator(".semantic")).not.toContainText("`");
  await pane.getByRole("checkbox", { name: "side by side" }).check();
  const table = pane.locator("table.diff.side-by-side");
  await expect(table).toBeVisible();
  await expect(table.locator("td.text.added")).toContainText(["mcp/hubspot_crm:list_open_tickets"]);
  await shot(page, testInfo, "diff-side-by-side");
  watch.check();
});
