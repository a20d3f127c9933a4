// Measures what tools/list costs an agent session: the bytes of the
// JSON-RPC response line and its tokens (gpt-tokenizer, o200k_base, the
// GPT-4o/GPT-5 encoding; bytes/4 is printed beside it as the usual
// estimate). Used for the figures in README's MCP section:
//
//   node measure.mjs GLOSS_BIN REPO_DIR
import { spawnSync } from "node:child_process";
import { countTokens } from "gpt-tokenizer";

const [bin, repo] = process.argv.slice(2);
if (!bin || !repo) {
  console.error("usage: node measure.mjs GLOSS_BIN REPO_DIR");
  process.exit(2);
}

const requests = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "measure", version: "1" } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
];

// toolsList returns the tools/list response line of `git-gloss mcp ARGS`.
function toolsList(args) {
  const input = requests.map((r) => JSON.stringify(r)).join("\n") + "\n";
  const run = spawnSync(bin, ["mcp", ...args], { cwd: repo, input, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`git-gloss mcp ${args.join(" ")}: exit ${run.status}\n${run.stderr}`);
  const line = run.stdout.split("\n").find((l) => l.includes('"id":2'));
  return { line, tools: JSON.parse(line).result.tools.length };
}

const configs = [
  ["default", []],
  ...["core", "annotations", "specs", "documents", "tasks", "notebook"].map((t) => [`--toolsets ${t}`, ["--toolsets", t]]),
  ["--toolsets all", ["--toolsets", "all"]],
  ["--toolsets all --output-schemas", ["--toolsets", "all", "--output-schemas"]],
  ["--dynamic-toolsets", ["--dynamic-toolsets"]],
];
console.log("| server arguments | tools | bytes | tokens (o200k) | bytes/4 |");
console.log("|---|---:|---:|---:|---:|");
for (const [label, args] of configs) {
  const { line, tools } = toolsList(args);
  const bytes = Buffer.byteLength(line);
  console.log(`| \`${label}\` | ${tools} | ${bytes} | ${countTokens(line)} | ${Math.round(bytes / 4)} |`);
}
