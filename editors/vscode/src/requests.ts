/**
 * The parts of the extension that do not need a VS Code host: building command arguments,
 * reading settings, and turning server answers into text. Unit-tested with node's test runner.
 */

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export const CATEGORIES = ["pattern", "security", "architecture", "preference", "error", "general"] as const;

export interface AddArguments {
  uri: string;
  range: Range;
  text: string;
  category: string;
}

/** The single argument object of `tether.add`; throws on empty text or an unknown category. */
export function addArguments(uri: string, range: Range, text: string, category = "general"): AddArguments {
  const trimmed = text.trim();
  if (!trimmed) {
    throw new Error("a learning needs some text");
  }
  if (!(CATEGORIES as readonly string[]).includes(category)) {
    throw new Error(`unknown category ${JSON.stringify(category)}`);
  }
  return { uri, range, text: trimmed, category };
}

export interface ServerSettings {
  command: string;
  args: string[];
}

/**
 * The server command from the user's settings, falling back to `tether lsp` when a value is
 * missing or of the wrong type (a string where a list was expected, an empty command).
 */
export function serverSettings(command: unknown, args: unknown): ServerSettings {
  const cmd = typeof command === "string" && command.trim() ? command.trim() : "tether";
  const argv = Array.isArray(args) && args.every((a) => typeof a === "string") ? (args as string[]) : ["lsp"];
  return { command: cmd, args: argv };
}

export interface StaleItem {
  id: string;
  uri: string;
  path: string;
  line: number;
  verdict: string;
  message: string;
}

/** Read the `items` of a `tether.staleCheck` answer, dropping anything malformed. */
export function staleItems(result: unknown): StaleItem[] {
  if (!result || typeof result !== "object") {
    return [];
  }
  const items = (result as { items?: unknown }).items;
  if (!Array.isArray(items)) {
    return [];
  }
  return items.filter(
    (item): item is StaleItem =>
      !!item &&
      typeof item.id === "string" &&
      typeof item.uri === "string" &&
      typeof item.path === "string" &&
      typeof item.line === "number" &&
      typeof item.verdict === "string" &&
      typeof item.message === "string",
  );
}

/** One line per stale item, for a quick pick label: "stale  src/pay.py:12  text". */
export function staleLabel(item: StaleItem): string {
  return `${item.verdict}  ${item.path}:${item.line + 1}  ${item.message}`;
}

/** The markdown text of a `tether.showLearnings` / `tether.showHistory` answer, or a fallback. */
export function markdownOf(result: unknown, fallback: string): string {
  if (result && typeof result === "object") {
    const markdown = (result as { markdown?: unknown }).markdown;
    if (typeof markdown === "string" && markdown.trim()) {
      return markdown;
    }
  }
  return fallback;
}
