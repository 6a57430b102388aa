import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { writeFileAtomicSync } from "../disk/atomic-write.js";
import { isPlainObject, McpConfigError, serverEntries } from "./config.js";

/**
 * Adds (or replaces) one server in a `{"mcpServers": {...}}` file, keeping every other entry and
 * key; the file is written atomically. A broken file is refused rather than overwritten.
 * Returns whether an entry of that name was replaced.
 */
export function addServerEntry(file: string, name: string, entry: Record<string, unknown>): { replaced: boolean } {
  const document = readDocument(file);
  const servers = serverEntries(file, JSON.stringify(document));
  const replaced = name in servers;
  writeDocument(file, { ...document, mcpServers: { ...servers, [name]: entry } });
  return { replaced };
}

/** Removes one server; false when the file has no server of that name (the file is left as it was). */
export function removeServerEntry(file: string, name: string): boolean {
  if (!existsSync(file)) return false;
  const document = readDocument(file);
  const servers = serverEntries(file, JSON.stringify(document));
  if (!(name in servers)) return false;
  const { [name]: _removed, ...rest } = servers;
  writeDocument(file, { ...document, mcpServers: rest });
  return true;
}

function readDocument(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, "utf8");
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${file} is not valid JSON (${(error as Error).message}); fix it by hand first, it was not changed.`);
  }
  if (!isPlainObject(parsed)) throw new McpConfigError(`${file} must hold a JSON object like {"mcpServers": {...}}; it was not changed.`);
  return parsed;
}

function writeDocument(file: string, document: Record<string, unknown>): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomicSync(file, `${JSON.stringify(document, null, 2)}\n`);
}
