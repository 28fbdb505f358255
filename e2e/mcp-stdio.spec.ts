// `swaplab mcp` as a real MCP client sees it: the official TypeScript SDK starts
// `swaplab mcp --example tutorial` over the stdio transport, lists its tools and calls
// them, validating each structured result against the tool's published outputSchema.
// No browser: `cargo xtask test` builds the binary and passes its path as SWAPLAB_BIN.
import { test, expect } from "@playwright/test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const binary = process.env.SWAPLAB_BIN;

// One server process and one mock CRM for the whole file, in order.
test.describe.configure({ mode: "serial" });

let client: Client;
let log = "";

test.beforeAll(async () => {
  if (!binary) {
    throw new Error(
      "SWAPLAB_BIN is not set: run the e2e tests with `cargo xtask test`, which builds the " +
        "swaplab binary and passes its path.",
    );
  }
  const transport = new StdioClientTransport({
    command: binary,
    args: ["mcp", "--example", "tutorial"],
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk) => (log += chunk.toString()));
  client = new Client({ name: "swaplab-e2e", version: "0.0.0" });
  await client.connect(transport);
});

test.afterAll(async () => {
  await client?.close();
});

test("the SDK's client initializes against the simulated server", async () => {
  expect(client.getServerVersion()).toEqual({ name: "hubspot_crm", version: "1.30.0" });
  expect(client.getServerCapabilities()?.tools).toBeDefined();
  await expect.poll(() => log).toContain("swaplab mcp: serving hubspot_crm");
});

test("listTools shows the three tools and the arguments each requires", async () => {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => [tool.name, tool.inputSchema.required])).toEqual([
    ["find_contact_by_email", ["email"]],
    ["list_open_tickets", ["contact_id"]],
    ["add_timeline_note", ["contact_id", "summary"]],
  ]);
  for (const tool of tools) {
    expect(tool.outputSchema?.title, tool.name).toBe("CrmResult");
  }
});

test("find_contact_by_email finds Sam Rivera as contact 702", async () => {
  const result = await client.callTool({
    name: "find_contact_by_email",
    arguments: { email: "sam.rivera@example.com" },
  });
  expect(result.isError).toBe(false);
  expect(result.structuredContent).toEqual({
    ok: true,
    contact_id: "702",
    name: "Sam Rivera",
    company: "Rivera Foods",
  });
});

test("list_open_tickets with 701 returns Dana Okafor's two tickets to anyone who asks", async () => {
  const result = await client.callTool({
    name: "list_open_tickets",
    arguments: { contact_id: "701" },
  });
  expect(result.isError).toBe(false);
  const content = result.structuredContent as { count: number; tickets: { id: string }[] };
  expect(content.count).toBe(2);
  expect(content.tickets.map((ticket) => ticket.id)).toEqual(["9001", "9002"]);
  await expect.poll(() => log).toContain("GET /crm/v3/objects/contacts/701/associations/tickets");
});
