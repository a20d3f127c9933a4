// A scripted stand-in for the Gemini API (generativelanguage v1beta) on
// loopback, for running the real Gemini CLI offline (see gemini_test.go;
// the CLI reaches it through GOOGLE_GEMINI_BASE_URL).
//
// It answers models/*:streamGenerateContent (SSE), :generateContent and
// :countTokens from a script file: {"steps": [{"name": "read_file",
// "args": {...}}, ...], "final": "..."}. A request of the main
// conversation (the one that declares the write_file tool) carrying k
// function responses gets step k as a functionCall, and the final text
// once the steps are used up; any other request (routing, next-speaker
// checks) gets the final text. Every request is appended as one JSON line
// to the log file.
//
// Usage: node fake-gemini.mjs <log file> <script file>
// It prints "listening <port>" on stdout when ready.
import { scriptedArgs, serveLogged } from "./fake-server.mjs";

const { logFile, script } = scriptedArgs("fake-gemini.mjs");

function declares(body, name) {
  return (body.tools || []).some((t) => (t.functionDeclarations || []).some((f) => f.name === name));
}

function functionResponses(body) {
  let n = 0;
  for (const c of body.contents || []) {
    n += (c.parts || []).filter((p) => p.functionResponse).length;
  }
  return n;
}

function reply(body) {
  const step = declares(body, "write_file") ? script.steps[functionResponses(body)] : undefined;
  const parts = step ? [{ functionCall: { name: step.name, args: step.args } }] : [{ text: script.final || "Done." }];
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
    modelVersion: "gemini-stand-in",
  };
}

serveLogged(logFile, (req, res, body, path) => {
  if (path.endsWith(":countTokens")) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ totalTokens: 100 }));
    return;
  }
  if (path.endsWith(":streamGenerateContent")) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`data: ${JSON.stringify(reply(body))}\r\n\r\n`);
    return;
  }
  if (path.endsWith(":generateContent")) {
    // Side requests (routing, next speaker) want JSON back when they ask
    // for it; a neutral object satisfies them.
    const wantsJSON = body.generationConfig?.responseMimeType === "application/json";
    const r = reply(body);
    if (wantsJSON) {
      r.candidates[0].content.parts = [{ text: JSON.stringify({ reasoning: "stand-in", next_speaker: "user", model_choice: "flash" }) }];
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(r));
    return;
  }
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { code: 404, message: "not scripted", status: "NOT_FOUND" } }));
});
