// The gloss extension for VS Code: it starts `git gloss lsp` (gloss's
// language server, over stdio) through VS Code's own language client and
// passes it the gloss settings. Everything it shows — hovers, code lenses,
// diagnostics, inlay hints — comes from the server, the same one every
// other editor runs (docs/editors.md).
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

function settings() {
  const cfg = vscode.workspace.getConfiguration('gloss');
  return {
    git: cfg.get<string>('gitPath') || 'git',
    init: { agentLines: cfg.get<string>('agentLines', 'off'), hoverTokens: cfg.get<number>('hoverTokens', 800) },
  };
}

function newClient(): LanguageClient {
  const s = settings();
  // No transport: the client talks over the process's stdin and stdout
  // and passes no --stdio flag.
  const server: ServerOptions = { command: s.git, args: ['gloss', 'lsp'] };
  const options: LanguageClientOptions = {
    // gloss answers for any file in a repository where it is set up.
    documentSelector: [{ scheme: 'file' }],
    initializationOptions: s.init,
    // Changes to the gloss settings reach the server as
    // workspace/didChangeConfiguration; it also pulls them itself.
    synchronize: { configurationSection: 'gloss' },
  };
  return new LanguageClient('gloss', 'gloss', server, options);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  client = newClient();
  context.subscriptions.push(
    vscode.commands.registerCommand('gloss.restart', async () => {
      await client?.stop();
      client = newClient();
      await client.start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('gloss.gitPath')) {
        await vscode.commands.executeCommand('gloss.restart');
      }
    }),
  );
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
