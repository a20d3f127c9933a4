// Calls gloss's MCP server the way an agent would, with the official
// TypeScript SDK client, and prints what comes back. Used by the demo:
//
//   node call.mjs REPO_DIR TOOL '{"arg":"value"}' [TOOL ARGS ...]
//
// The server is `git-gloss mcp`, started in REPO_DIR, found on PATH.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [repo, ...calls] = process.argv.slice(2);
if (!repo || calls.length % 2 !== 0) {
  console.error("usage: node call.mjs REPO_DIR TOOL JSON_ARGS [TOOL JSON_ARGS ...]");
  process.exit(2);
}
// The demo uses every capability, so it asks for every toolset (the default
// surface is core, annotations and specs).
const transport = new StdioClientTransport({ command: "git-gloss", args: ["mcp", "--toolsets", "all"], cwd: repo, stderr: "inherit" });
const client = new Client({ name: "gloss-demo", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
console.log(`connected to ${client.getServerVersion().name} ${client.getServerVersion().version}: ${tools.length} tools`);
let failed = false;
for (let i = 0; i < calls.length; i += 2) {
  const name = calls[i];
  const args = JSON.parse(calls[i + 1]);
  const res = await client.callTool({ name, arguments: args });
  console.log(`\n→ ${name} ${JSON.stringify(args)}${res.isError ? "  (isError)" : ""}`);
  const text = res.content?.[0]?.text ?? "";
  try {
    console.log(JSON.stringify(JSON.parse(text), null, 2));
  } catch {
    console.log(text);
  }
  failed ||= res.isError === true;
}
await client.close();
process.exit(failed ? 1 : 0);
