// Times one patch_block call, round trip through the official SDK client,
// on any Noma Annex B server: gloss's, or a peer's, in the same run.
//
//   node patchtime.mjs CALLS NAME=COMMAND [NAME=COMMAND ...]
//
// Each server runs in its own copy of a small document's folder (so both
// write the same bytes); the calls alternate between the servers in
// rounds, so a loaded machine slows them alike. It prints the median and
// the 90th percentile per server, in milliseconds.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [callsArg, ...specs] = process.argv.slice(2);
const calls = Number(callsArg);
if (!calls || specs.length === 0) {
  console.error("usage: node patchtime.mjs CALLS NAME=COMMAND [NAME=COMMAND ...]");
  process.exit(2);
}

const doc = "# Pricing\n\n::claim{id=\"market-size\" confidence=\"0.5\"}\nThe market is large.\n::\n";

async function start(spec) {
  const [name, command] = [spec.slice(0, spec.indexOf("=")), spec.slice(spec.indexOf("=") + 1)];
  const dir = mkdtempSync(join(tmpdir(), "patchtime-"));
  execFileSync("git", ["init", "-q", dir]);
  writeFileSync(join(dir, "d.noma"), doc);
  const [cmd, ...args] = command.split(" ");
  const transport = new StdioClientTransport({ command: cmd, args, cwd: dir, stderr: "ignore" });
  const client = new Client({ name: "patchtime", version: "1.0.0" });
  await client.connect(transport);
  return { name, client, times: [] };
}

const servers = [];
for (const s of specs) servers.push(await start(s));
for (let i = 0; i < calls; i++) {
  for (const s of servers) {
    const op = { op: "update_attribute", id: "market-size", key: "confidence", value: String((i % 9) / 10 + 0.1) };
    const t0 = performance.now();
    const res = await s.client.callTool({ name: "patch_block", arguments: { file: "d.noma", op } });
    const dt = performance.now() - t0;
    const text = res.content?.[0]?.text ?? "";
    if (res.isError || !text.includes('"ok":true')) {
      console.error(`${s.name}: call ${i} failed: ${text}`);
      process.exit(1);
    }
    if (i >= 5) s.times.push(dt); // the first calls warm caches up
  }
}
const pct = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)];
for (const s of servers) {
  console.log(`${s.name}: median ${pct(s.times, 0.5).toFixed(2)} ms, p90 ${pct(s.times, 0.9).toFixed(2)} ms over ${s.times.length} calls`);
  await s.client.close();
}
