// A scripted stand-in for the Anthropic Messages API on loopback, for
// running the real Claude Code CLI offline (see agent_test.go).
//
// It answers POST /v1/messages, streaming (SSE) or not, from a script
// file: {"steps": [{"name": "Write", "input": {...}}, ...], "final": "..."}.
// A request of the main conversation (the one that offers the Write tool)
// that carries k tool results gets step k as a tool_use, and the final
// text once the steps are used up. Any other request (a title, a quota
// probe) gets the final text. Every request is appended as one JSON line
// to the log file, so the test can look at what the CLI sent the model
// (hook context included).
//
// Usage: node fake-anthropic.mjs <log file> <script file>
// It prints "listening <port>" on stdout when ready.
import { scriptedArgs, serveLogged } from "./fake-server.mjs";

const { logFile, script } = scriptedArgs("fake-anthropic.mjs");

let ids = 0;
const id = (p) => `${p}_${String(++ids).padStart(6, "0")}`;

function toolResults(body) {
  let n = 0;
  for (const m of body.messages || []) {
    if (Array.isArray(m.content)) n += m.content.filter((c) => c.type === "tool_result").length;
  }
  return n;
}

function offersTool(body, name) {
  return (body.tools || []).some((t) => t.name === name);
}

// reply decides the assistant's content for a request. The main
// conversation is the one that offers the script's mainTool (Claude Code's
// "Write" unless the script names another agent's, such as OpenCode's
// "write").
function reply(body) {
  const step = offersTool(body, script.mainTool || "Write") ? script.steps[toolResults(body)] : undefined;
  if (step) {
    return {
      content: [
        { type: "text", text: `Calling ${step.name}.` },
        { type: "tool_use", id: id("toolu"), name: step.name, input: step.input },
      ],
      stop: "tool_use",
    };
  }
  return { content: [{ type: "text", text: script.final || "Done." }], stop: "end_turn" };
}

function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function stream(res, body, r) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const msg = {
    id: id("msg"), type: "message", role: "assistant", model: body.model, content: [],
    stop_reason: null, stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  sse(res, "message_start", { type: "message_start", message: msg });
  r.content.forEach((block, index) => {
    if (block.type === "text") {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } });
    } else {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  sse(res, "message_delta", { type: "message_delta", delta: { stop_reason: r.stop, stop_sequence: null }, usage: { output_tokens: 20 } });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
}

serveLogged(logFile, (req, res, body, path) => {
  if (req.method === "POST" && path === "/v1/messages/count_tokens") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ input_tokens: 100 }));
    return;
  }
  if (req.method !== "POST" || path !== "/v1/messages") {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not scripted" } }));
    return;
  }
  const r = reply(body);
  if (body.stream) {
    stream(res, body, r);
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({
    id: id("msg"), type: "message", role: "assistant", model: body.model, content: r.content,
    stop_reason: r.stop, stop_sequence: null, usage: { input_tokens: 100, output_tokens: 20 },
  }));
});
