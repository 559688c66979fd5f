import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { addArguments, markdownOf, serverSettings, staleItems, staleLabel } from "../src/requests";
import { CLIENT_COMMANDS } from "../src/serverCommands";

const range = { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } };

test("addArguments trims the text and keeps the range", () => {
  const args = addArguments("file:///r/a.py", range, "  keep retries idempotent \n", "pattern");
  assert.deepEqual(args, { uri: "file:///r/a.py", range, text: "keep retries idempotent", category: "pattern" });
});

test("addArguments refuses empty text and unknown categories", () => {
  assert.throws(() => addArguments("file:///r/a.py", range, "   "), /needs some text/);
  assert.throws(() => addArguments("file:///r/a.py", range, "x", "gossip"), /unknown category/);
});

test("serverSettings falls back to tether lsp on bad values", () => {
  assert.deepEqual(serverSettings(undefined, undefined), { command: "tether", args: ["lsp"] });
  assert.deepEqual(serverSettings("  ", "lsp"), { command: "tether", args: ["lsp"] });
  assert.deepEqual(serverSettings("/opt/bin/tether", ["lsp", "--log-file", "/tmp/t.log"]), {
    command: "/opt/bin/tether",
    args: ["lsp", "--log-file", "/tmp/t.log"],
  });
  assert.deepEqual(serverSettings("tether", [1, 2]), { command: "tether", args: ["lsp"] });
});

test("staleItems keeps well-formed items only", () => {
  const good = { id: "01J", uri: "file:///r/a.py", path: "a.py", line: 4, verdict: "stale", message: "m" };
  assert.deepEqual(staleItems({ items: [good, { id: 3 }, null] }), [good]);
  assert.deepEqual(staleItems(null), []);
  assert.deepEqual(staleItems({ items: "nope" }), []);
  assert.equal(staleLabel(good), "stale  a.py:5  m");
});

test("markdownOf falls back when the answer has no markdown", () => {
  assert.equal(markdownOf({ markdown: "# x" }, "none"), "# x");
  assert.equal(markdownOf({ markdown: "  " }, "none"), "none");
  assert.equal(markdownOf(undefined, "none"), "none");
});

test("package.json contributes exactly the client commands", () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8"));
  const contributed = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
  assert.deepEqual(contributed, Object.values(CLIENT_COMMANDS).sort());
  const settings = Object.keys(pkg.contributes.configuration.properties).sort();
  assert.deepEqual(settings, ["tether.server.args", "tether.server.command", "tether.trace.server"]);
});
