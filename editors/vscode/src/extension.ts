/**
 * The Tether client: starts `tether lsp` over stdio and adds three commands.
 * Everything the user sees about learnings comes from the server (hover, code lens, diagnostics,
 * code actions); this file only wires VS Code to it and asks for text where the server cannot.
 */
import * as vscode from "vscode";
import {
  ExecuteCommandSignature,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { CATEGORIES, addArguments, markdownOf, serverSettings, staleItems, staleLabel } from "./requests";
import { CLIENT_COMMANDS, SERVER_COMMANDS } from "./serverCommands";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const config = vscode.workspace.getConfiguration("tether");
  const settings = serverSettings(config.get("server.command"), config.get("server.args"));
  const serverOptions: ServerOptions = {
    command: settings.command,
    args: settings.args,
    transport: TransportKind.stdio,
  };
  output = vscode.window.createOutputChannel("Tether");
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file" }],
    outputChannel: output,
    middleware: { executeCommand },
  };
  client = new LanguageClient("tether", "Tether", serverOptions, clientOptions);
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand(CLIENT_COMMANDS.addLearningHere, addLearningHere),
    vscode.commands.registerCommand(CLIENT_COMMANDS.showLearningsHere, showLearningsHere),
    vscode.commands.registerCommand(CLIENT_COMMANDS.runStaleCheck, runStaleCheck),
  );
  try {
    await client.start();
  } catch (err) {
    void vscode.window.showErrorMessage(
      `Tether: could not start "${settings.command} ${settings.args.join(" ")}" (${String(err)}). ` +
        "Install the tether package or set tether.server.command.",
    );
  }
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}

/**
 * Commands that code lenses and code actions send to the server pass through here, so that
 * answers meant for a person (learnings, history) are shown and "Invalidate…" asks for a reason.
 */
async function executeCommand(command: string, args: unknown[], next: ExecuteCommandSignature): Promise<unknown> {
  if (command === SERVER_COMMANDS.invalidate) {
    const first = (args[0] ?? {}) as { id?: unknown; reason?: unknown };
    if (typeof first.reason !== "string" || !first.reason.trim()) {
      const reason = await vscode.window.showInputBox({ prompt: "Why does this learning no longer hold?" });
      if (!reason) {
        return undefined;
      }
      args = [{ ...first, reason }];
    }
  }
  const result = await next(command, args);
  if (command === SERVER_COMMANDS.showLearnings || command === SERVER_COMMANDS.showHistory) {
    await showMarkdown(markdownOf(result, "No learnings here."));
  }
  return result;
}

/** Show server-rendered markdown as a plain text document: untrusted text is never rendered. */
async function showMarkdown(markdown: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument({ content: markdown, language: "markdown" });
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

async function addLearningHere(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !client) {
    return;
  }
  const text = await vscode.window.showInputBox({
    prompt: "What should the next person know about this code?",
    placeHolder: "Retries here must stay idempotent: the gateway double-charges on timeout",
  });
  if (!text) {
    return;
  }
  const category = await vscode.window.showQuickPick([...CATEGORIES], { placeHolder: "Category" });
  if (!category) {
    return;
  }
  const sel = editor.selection;
  const args = addArguments(
    editor.document.uri.toString(),
    {
      start: { line: sel.start.line, character: sel.start.character },
      end: { line: sel.end.line, character: sel.end.character },
    },
    text,
    category,
  );
  try {
    const result = (await client.sendRequest("workspace/executeCommand", {
      command: SERVER_COMMANDS.add,
      arguments: [args],
    })) as { id?: string } | null;
    void vscode.window.showInformationMessage(`Tether: learning ${result?.id ?? ""} added.`);
  } catch (err) {
    // The server has already shown why (e.g. the scanner rule that refused the text); keep a trace.
    output?.appendLine(`add failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function showLearningsHere(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !client) {
    return;
  }
  const result = await client.sendRequest("workspace/executeCommand", {
    command: SERVER_COMMANDS.showLearnings,
    arguments: [{ uri: editor.document.uri.toString(), line: editor.selection.active.line }],
  });
  await showMarkdown(markdownOf(result, "No learnings here."));
}

async function runStaleCheck(): Promise<void> {
  if (!client) {
    return;
  }
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: "Tether: checking anchors" },
    () => client!.sendRequest("workspace/executeCommand", { command: SERVER_COMMANDS.staleCheck, arguments: [{}] }),
  );
  const items = staleItems(result);
  if (items.length === 0) {
    void vscode.window.showInformationMessage("Tether: every anchored learning is fresh.");
    return;
  }
  const picked = await vscode.window.showQuickPick(
    items.map((item) => ({ label: staleLabel(item), item })),
    { placeHolder: `${items.length} learnings need a look` },
  );
  if (picked) {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(picked.item.uri));
    const pos = new vscode.Position(picked.item.line, 0);
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos) });
  }
}
