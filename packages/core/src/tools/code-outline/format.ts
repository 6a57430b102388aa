import type { OutlineEntry } from "./outline.js";

/**
 * One file's outline as the model reads it: the path, then one line per definition with its
 * line number, members indented under their container.
 *
 *     src/server.ts
 *       12│ export class Server
 *       20│   start(port: number): Promise<void>
 */
export function formatOutline(shownPath: string, entries: readonly OutlineEntry[], notes: readonly string[] = []): string {
  const width = String(entries.reduce((max, entry) => Math.max(max, entry.line), 0)).length;
  const lines = entries.map((entry) => `  ${String(entry.line).padStart(width)}│ ${"  ".repeat(entry.depth)}${entry.signature}`);
  return [shownPath, ...lines, ...notes.map((note) => `  [${note}]`)].join("\n");
}
