// A minimal VS Code extension that starts `prefixlint server` for the files `prefixlint check` reads.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

const FILES = "**/*.{yaml,yml,md,txt,j2,jinja,jinja2,prompty,prompt,json,py,ts,tsx,js,mjs,cjs}";
let client;

function activate(context) {
  const settings = vscode.workspace.getConfiguration("prefixlint");
  const server = { command: settings.get("path", "prefixlint"), args: ["server"], transport: TransportKind.stdio };
  client = new LanguageClient("prefixlint", "prefixlint", { run: server, debug: server }, {
    documentSelector: [{ scheme: "file", pattern: FILES }],
    initializationOptions: settings.get("initializationOptions", {}),
    synchronize: {
      // A change of the prefixlint.* settings is sent to the server, which re-checks the open files.
      configurationSection: "prefixlint",
      // Saving a configuration file re-checks the open documents.
      fileEvents: vscode.workspace.createFileSystemWatcher("**/{pyproject.toml,.prefixlint.yaml,.prefixlint.yml}"),
    },
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
