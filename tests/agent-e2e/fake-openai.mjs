// A scripted stand-in for the OpenAI Responses API on loopback, for running
// the real Codex CLI offline (see codex_test.go; Codex reaches it as a
// custom model provider with base_url and supports_websockets = false).
//
// It answers POST /v1/responses with a stream (SSE) from a script file:
// {"steps": [{"name": "apply_patch", "input": "*** Begin Patch ..."}, ...],
// "final": "..."}. A request that declares the apply_patch tool and carries
// k tool outputs gets step k as a tool call (custom or function, as the tool
// is declared), and the final text once the steps are used up. GET
// /v1/models answers an empty list. Every request is appended as one JSON
// line to the log file.
//
// Usage: node fake-openai.mjs <log file> <script file>
// It prints "listening <port>" on stdout when ready.
import { scriptedArgs, serveLogged } from "./fake-server.mjs";
const { logFile, script } = scriptedArgs("fake-openai.mjs");
let ids = 0;
const id = (p) => `${p}_${++ids}`;
function outputs(body) {
  return (body.input || []).filter((i) => i.type === "function_call_output" || i.type === "custom_tool_call_output").length;
}
function declares(body, name) {
  return (body.tools || []).find((t) => t.name === name);
}
function sse(res, type, data) {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}
serveLogged(logFile, (req, res, body, path) => {
  if (req.method === "GET" && path.endsWith("/models")) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", data: [] }));
    return;
  }
  if (req.method !== "POST" || !path.endsWith("/responses")) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "not scripted" } }));
    return;
  }
  const step = declares(body, "apply_patch") ? script.steps[outputs(body)] : undefined;
  let item;
  if (step) {
    const tool = declares(body, step.name);
    item = tool && tool.type === "custom"
      ? { type: "custom_tool_call", id: id("ctc"), status: "completed", call_id: id("call"), name: step.name, input: step.input }
      : { type: "function_call", id: id("fc"), status: "completed", call_id: id("call"), name: step.name, arguments: JSON.stringify(step.args ?? { input: step.input }) };
  } else {
    item = { type: "message", id: id("msg"), role: "assistant", status: "completed", content: [{ type: "output_text", text: script.final || "Done.", annotations: [] }] };
  }
  const rid = id("resp");
  res.writeHead(200, { "content-type": "text/event-stream" });
  sse(res, "response.created", { response: { id: rid } });
  sse(res, "response.output_item.done", { output_index: 0, item });
  sse(res, "response.completed", { response: { id: rid, usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110 } } });
  res.end();
});
