// Drives `git gloss lsp` with vscode-jsonrpc and
// vscode-languageserver-protocol, the libraries VS Code's language client
// is built on: every capability the server announces, then malformed
// messages, each answered with a clear error while the server keeps
// running. lsp/client_test.go builds the repository and runs this file:
//   LSPTEST_BIN      the git-gloss binary
//   LSPTEST_REPO     a repository set up with gloss (the shop of lsp_test.go)
//   LSPTEST_OUTSIDE  a directory in no repository
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  InitializeRequest,
  InitializedNotification,
  HoverRequest,
  CodeLensRequest,
  InlayHintRequest,
  ExecuteCommandRequest,
  DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification,
  DidSaveTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidChangeConfigurationNotification,
  PublishDiagnosticsNotification,
  ShowMessageNotification,
  LogMessageNotification,
  ShowDocumentRequest,
  ConfigurationRequest,
  CodeLensRefreshRequest,
  InlayHintRefreshRequest,
  ShutdownRequest,
  ExitNotification,
  ResponseError,
} from 'vscode-languageserver-protocol/node';

const bin = process.env.LSPTEST_BIN;
const repo = process.env.LSPTEST_REPO;
const outside = process.env.LSPTEST_OUTSIDE;
const constraint = 'must never return a negative total';
const uri = (p) => pathToFileURL(p).href;
const shopUri = uri(join(repo, 'shop.go'));

let proc;
let conn;
let caps;
const logged = []; // what vscode-jsonrpc reported (responses with id null land here)
const diagnostics = new Map();
const shown = [];
const messages = [];
let exitCode = null;

function waitFor(what, check, ms = 20000) {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      const v = check();
      if (v) return resolve(v);
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 50);
    };
    tick();
  });
}

const hoverAt = (u, line) => conn.sendRequest(HoverRequest.type, { textDocument: { uri: u }, position: { line, character: 2 } });

async function expectError(promise, code, pattern) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof ResponseError, `want a ResponseError, got ${err}`);
    assert.equal(err.code, code, `code of: ${err.message}`);
    assert.match(err.message, pattern);
    return true;
  });
}

before(async () => {
  proc = spawn(bin, ['lsp'], { cwd: repo, stdio: ['pipe', 'pipe', 'inherit'] });
  proc.on('exit', (code) => { exitCode = code; });
  const logger = { error: (m) => logged.push(m), warn: (m) => logged.push(m), info: () => {}, log: () => {} };
  conn = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin), logger);
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => diagnostics.set(p.uri, p.diagnostics));
  conn.onNotification(ShowMessageNotification.type, (p) => messages.push(p.message));
  conn.onNotification(LogMessageNotification.type, (p) => messages.push(p.message));
  conn.onRequest(ShowDocumentRequest.type, (p) => { shown.push(p.uri); return { success: true }; });
  conn.onRequest(ConfigurationRequest.type, (p) => p.items.map(() => ({ agentLines: 'inlay' })));
  conn.onRequest(CodeLensRefreshRequest.type, () => null);
  conn.onRequest(InlayHintRefreshRequest.type, () => null);
  conn.listen();
  const res = await conn.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: uri(repo),
    workspaceFolders: [{ uri: uri(repo), name: 'repo' }],
    capabilities: {
      window: { showDocument: { support: true } },
      workspace: { configuration: true, codeLens: { refreshSupport: true }, inlayHint: { refreshSupport: true } },
    },
  });
  caps = res.capabilities;
  assert.equal(res.serverInfo.name, 'gloss');
  conn.sendNotification(InitializedNotification.type, {});
});

after(async () => {
  try {
    if (exitCode === null) {
      await Promise.race([conn.sendRequest(ShutdownRequest.type), new Promise((_, no) => setTimeout(() => no(new Error('no answer to shutdown')), 10000))]);
      conn.sendNotification(ExitNotification.type);
      await waitFor('the server to exit', () => exitCode !== null, 10000);
    }
    assert.equal(exitCode, 0, 'the server exits 0 after shutdown and exit');
  } finally {
    conn.dispose();
    if (exitCode === null) proc.kill('SIGKILL');
  }
});

test('announces what it serves', { timeout: 60000 }, () => {
  assert.equal(caps.hoverProvider, true);
  assert.equal(caps.textDocumentSync.change, 1, 'full sync');
  assert.equal(caps.textDocumentSync.openClose, true);
  assert.ok(caps.codeLensProvider);
  assert.ok(caps.inlayHintProvider);
  assert.deepEqual(caps.executeCommandProvider.commands, ['gloss.showRecords']);
});

test('document sync, hover, code lens, command, diagnostics, inlay hints', { timeout: 60000 }, async () => {
  const text = (await import('node:fs')).readFileSync(join(repo, 'shop.go'), 'utf8');
  conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: shopUri, languageId: 'go', version: 1, text } });

  const hover = await hoverAt(shopUri, 6);
  assert.equal(hover.contents.kind, 'markdown');
  assert.match(hover.contents.value, new RegExp(constraint));
  assert.match(hover.contents.value, /written by human/);

  const lenses = await conn.sendRequest(CodeLensRequest.type, { textDocument: { uri: shopUri } });
  const total = lenses.find((l) => l.command.arguments[1] === 'Total');
  assert.ok(total, `a lens for Total among ${JSON.stringify(lenses)}`);
  assert.match(total.command.title, /1 constraint/);

  const page = await conn.sendRequest(ExecuteCommandRequest.type, { command: total.command.command, arguments: total.command.arguments });
  assert.match(page, new RegExp(constraint));
  await waitFor('showDocument of the records page', () => shown.find((u) => u.includes('/.git/gloss/lsp/')));

  // An unsaved edit inside Total: told the constraint, at information level.
  conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: shopUri, version: 2 },
    contentChanges: [{ text: text.replace('return max(sum, 0)', 'return sum') }],
  });
  const diags = await waitFor('a diagnostic', () => (diagnostics.get(shopUri) || []).length > 0 && diagnostics.get(shopUri));
  assert.equal(diags.length, 1);
  assert.equal(diags[0].severity, 3, 'information, never an error');
  assert.match(diags[0].message, new RegExp(constraint));

  // Inlay hints are off until turned on (the settings the server pulls
  // through workspace/configuration, or pushes like this).
  const range = { start: { line: 0, character: 0 }, end: { line: 100, character: 0 } };
  conn.sendNotification(DidChangeConfigurationNotification.type, { settings: { gloss: { agentLines: 'inlay' } } });
  const hints = await conn.sendRequest(InlayHintRequest.type, { textDocument: { uri: shopUri }, range });
  const agent = hints.find((h) => String(h.label).includes('claude'));
  assert.ok(agent, `a hint on the agent's lines among ${JSON.stringify(hints)}`);
  conn.sendNotification(DidChangeConfigurationNotification.type, { settings: { gloss: { agentLines: 'off' } } });
  assert.deepEqual(await conn.sendRequest(InlayHintRequest.type, { textDocument: { uri: shopUri }, range }), []);

  conn.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri: shopUri } });
  conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: shopUri } });
  await waitFor('diagnostics cleared on close', () => (diagnostics.get(shopUri) || [1]).length === 0);
  await expectError(hoverAt(shopUri, 6), -32803, /is not open/);
});

test('malformed messages: a clear error, and the server keeps running', { timeout: 60000 }, async () => {
  // Not JSON at all, then JSON that is no JSON-RPC message: each is
  // answered with an error whose id is null.
  for (const body of ['{"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {', '[]', '42']) {
    proc.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  await waitFor('three errors without an id', () => logged.filter((m) => m.includes('without id')).length >= 3);
  assert.ok(logged.some((m) => m.includes('-32700') && m.includes('not a JSON-RPC 2.0 message')), logged.join('\n'));

  await expectError(conn.sendRequest('gloss/noSuchMethod', {}), -32601, /unknown method "gloss\/noSuchMethod"/);
  conn.sendNotification('gloss/noSuchNotification', {}); // ignored, as the protocol says

  await expectError(conn.sendRequest(HoverRequest.method, { textDocument: { uri: shopUri }, position: { line: 'seven' } }), -32602, /invalid params of textDocument\/hover/);

  // A document in no repository.
  const lone = join(outside, 'lone.go');
  writeFileSync(lone, 'package lone\n');
  conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: uri(lone), languageId: 'go', version: 1, text: 'package lone\n' } });
  await expectError(hoverAt(uri(lone), 0), -32803, /not in a git repository/);

  // A 50 MB document, in the repository.
  const bigUri = uri(join(repo, 'big.txt'));
  conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: bigUri, languageId: 'plaintext', version: 1, text: 'x'.repeat(50 << 20) } });
  await expectError(hoverAt(bigUri, 0), -32803, /50\.0 MiB, over the 16 MiB gloss reads/);
  assert.ok(messages.some((m) => m.includes('50.0 MiB')), 'the person is told, not only the log');

  // Still serving.
  const text = (await import('node:fs')).readFileSync(join(repo, 'shop.go'), 'utf8');
  conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: shopUri, languageId: 'go', version: 1, text } });
  const hover = await hoverAt(shopUri, 6);
  assert.match(hover.contents.value, new RegExp(constraint));
  assert.equal(exitCode, null, 'the server is still running');
});
