import { appendFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { cairnHome } from "@cairn/core/cairn-home"; // not the whole agent: this loads with every command
import { terminalText } from "./terminal-text.js";

/**
 * Where the full details of a failure go, so that a person sees one line and a developer still
 * gets the stack: CAIRN_HOME/logs/errors.log, else the system temp folder (CAIRN_HOME may be the
 * very thing that cannot be written).
 */
export function writeFailureLog(error: unknown, env: Record<string, string | undefined>, argv: readonly string[]): string | undefined {
  const entry = `${new Date().toISOString()} cairn ${argv.map((a) => JSON.stringify(a)).join(" ")}\n${detail(error)}\n\n`;
  for (const dir of [path.join(cairnHome(env), "logs"), path.join(os.tmpdir(), "cairn-logs")]) {
    const file = path.join(dir, "errors.log");
    try {
      mkdirSync(dir, { recursive: true });
      appendFileSync(file, entry, { mode: 0o600 });
      return file;
    } catch {
      // Try the next place.
    }
  }
  return undefined;
}

function detail(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause === undefined ? "" : `\ncaused by: ${detail(error.cause)}`;
  return `${error.stack ?? `${error.name}: ${error.message}`}${cause}`;
}

/**
 * One line for a person: what failed (with the file, when the system named one), never a stack.
 * A message can carry what a model or tool wrote (a path, a reply): printed without its escapes.
 */
export function failureLine(error: unknown): string {
  if (!(error instanceof Error)) return terminalText(String(error).split("\n")[0]!);
  const e = error as NodeJS.ErrnoException;
  const message = (e.message || e.name || "unknown error").split("\n")[0]!;
  return terminalText(typeof e.path === "string" && !message.includes(e.path) ? `${message} (${e.path})` : message);
}
