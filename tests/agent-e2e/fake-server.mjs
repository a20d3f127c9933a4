// What the scripted model API stand-ins (fake-anthropic.mjs,
// fake-gemini.mjs, fake-openai.mjs) share: their arguments, and a loopback
// HTTP server that appends every request to the log file as one JSON line
// (so a test can look at what the agent sent its model) before the stand-in
// answers it. The server prints "listening <port>" on stdout when ready and
// stops on SIGTERM.
import http from "node:http";
import fs from "node:fs";

// scriptedArgs reads "<log file> <script file>" and the script.
export function scriptedArgs(name) {
  const [logFile, scriptFile] = process.argv.slice(2);
  if (!logFile || !scriptFile) {
    console.error(`usage: ${name} <log file> <script file>`);
    process.exit(2);
  }
  return { logFile, script: JSON.parse(fs.readFileSync(scriptFile, "utf8")) };
}

// serveLogged calls answer(req, res, body, path) for each request, body
// parsed as JSON ({} when empty or not JSON) and path without the query.
export function serveLogged(logFile, answer) {
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      let body = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        /* not JSON: logged as is */
      }
      fs.appendFileSync(logFile, JSON.stringify({ method: req.method, url: req.url, body }) + "\n");
      answer(req, res, body, req.url.split("?")[0]);
    });
  });
  server.listen(0, "127.0.0.1", () => {
    console.log(`listening ${server.address().port}`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}
