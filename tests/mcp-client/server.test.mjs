// Drives `git-gloss mcp` with the official MCP TypeScript SDK client, the
// way a real agent would. Run by mcp/client_test.go, which builds the
// binary and a fixture repository and passes them in:
//   GLOSS_BIN   path of the git-gloss binary
//   GLOSS_REPO  repository to serve (gloss initialised, then its setup
//               version removed, so that a projectNote is due)
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const bin = process.env.GLOSS_BIN;
const repo = process.env.GLOSS_REPO;
assert.ok(bin && repo, "GLOSS_BIN and GLOSS_REPO must be set (run through go test ./mcp)");

// connect starts a server and returns the client plus every raw message the
// client received, so the tests can look at fields the SDK does not expose.
async function connect(args = ["mcp"], env = {}) {
  const transport = new StdioClientTransport({
    command: bin,
    args,
    cwd: repo,
    env: { ...process.env, ...env },
    stderr: "pipe",
  });
  const received = [];
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    const deliver = transport.onmessage;
    transport.onmessage = (msg) => {
      received.push(msg);
      deliver?.(msg);
    };
  };
  const client = new Client({ name: "gloss-ts-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, received };
}

test("initialize negotiates the client's protocol version and carries hints", async () => {
  const { client, received } = await connect();
  try {
    assert.equal(client.getServerVersion().name, "gloss");
    const init = received.find((m) => m.result?.protocolVersion);
    assert.equal(init.result.protocolVersion, LATEST_PROTOCOL_VERSION);
    assert.match(init.result.projectNote, /git gloss init/);
    assert.match(client.getInstructions(), /never as instructions/);
  } finally {
    await client.close();
  }
});

test("with --output-schemas, tools/list describes gloss_status with an output schema", async () => {
  const { client } = await connect(["mcp", "--output-schemas"]);
  try {
    const { tools } = await client.listTools();
    const status = tools.find((t) => t.name === "gloss_status");
    assert.ok(status, "gloss_status is listed");
    assert.equal(status.inputSchema.type, "object");
    assert.equal(status.outputSchema.type, "object");
    assert.equal(status.annotations.readOnlyHint, true);
  } finally {
    await client.close();
  }
});

test("gloss_status returns the same bytes as git gloss status --json", async () => {
  const { client } = await connect(["mcp", "--output-schemas"]);
  try {
    // callTool validates structuredContent against the output schema.
    const res = await client.callTool({ name: "gloss_status", arguments: {} });
    assert.notEqual(res.isError, true);
    const cli = execFileSync(bin, ["status", "--json"], { cwd: repo, encoding: "utf8" });
    assert.equal(res.content[0].text, cli.trimEnd());
    assert.equal(res.structuredContent.$schema, "gloss-status/v1");
    assert.equal(res.structuredContent.initialized, true);
  } finally {
    await client.close();
  }
});

test("a panicking tool is an isError result and the server keeps serving", async () => {
  const { client } = await connect(["mcp"], { GLOSS_MCP_DEBUG_TOOLS: "1" });
  try {
    const res = await client.callTool({ name: "debug_panic", arguments: {} });
    assert.equal(res.isError, true);
    assert.match(res.content[0].text, /internal error/);
    const again = await client.callTool({ name: "gloss_status", arguments: {} });
    assert.notEqual(again.isError, true);
  } finally {
    await client.close();
  }
});

test("20 concurrent calls all come back with their own answers", async () => {
  const { client } = await connect(["mcp"], { GLOSS_MCP_DEBUG_TOOLS: "1" });
  try {
    const calls = Array.from({ length: 20 }, (_, i) =>
      client.callTool({ name: "debug_sleep", arguments: { millis: (i % 5) * 20 } }),
    );
    const results = await Promise.all(calls);
    results.forEach((r, i) => assert.equal(JSON.parse(r.content[0].text).slept_ms, (i % 5) * 20));
  } finally {
    await client.close();
  }
});

test("unknown method and unknown tool are protocol errors", async () => {
  const { client } = await connect();
  try {
    await assert.rejects(
      client.request({ method: "no/such/method", params: {} }, z.object({})),
      (err) => err.code === -32601,
    );
    await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), (err) => err.code === -32602);
  } finally {
    await client.close();
  }
});

test("--read-only and --toolsets shape the tool list", async () => {
  const { client } = await connect(["mcp", "--read-only", "--toolsets", "core"]);
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.length > 0);
    for (const t of tools) assert.equal(t.annotations.readOnlyHint, true, `${t.name} is read-only`);
  } finally {
    await client.close();
  }
});

test("--dynamic-toolsets: enable_toolset adds tools and the client hears of it", { timeout: 60_000 }, async () => {
  const { client } = await connect(["mcp", "--dynamic-toolsets"]);
  try {
    let { tools } = await client.listTools();
    assert.ok(!tools.some((t) => t.name === "task_list"));
    const changed = new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, resolve));
    const res = await client.callTool({ name: "enable_toolset", arguments: { toolset: "tasks" } });
    assert.notEqual(res.isError, true);
    await changed; // notifications/tools/list_changed
    ({ tools } = await client.listTools());
    assert.ok(tools.some((t) => t.name === "task_list"), "task_list is listed after enable_toolset");
  } finally {
    await client.close();
  }
});
