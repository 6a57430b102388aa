import path from "node:path";
import type { ServerConfig } from "./config.js";

/**
 * What a sandboxed server's own words say the sandbox refused: Node's `EROFS: read-only file
 * system, open '/x'`, Python's `[Errno 30] Read-only file system: '/x'`, and EACCES / permission
 * denied on a named path, and ENOENT on a path in one of `hidden` (but not in `visible`, the server's own state folder there). Undefined when the text shows no refused write.
 */
export function refusedWrite(text: string, hidden: readonly string[] = [], visible: readonly string[] = []): { code: string; path: string | undefined } | undefined {
  let found: { code: string; path: string | undefined } | undefined;
  for (const line of text.split("\n")) {
    const missing = /\bENOENT\b.*?'(\/[^']+)'/.exec(line);
    // In a hidden folder (CAIRN_HOME: an empty tmpfs but for the server's own state folder) a write finds no folder to write in.
    const inHidden = (file: string) => hidden.some((folder) => inside(folder, file)) && !visible.some((folder) => inside(folder, file));
    if (missing && inHidden(missing[1]!)) return { code: "ENOENT", path: missing[1] };
    const match = /\b(EROFS|EACCES|EPERM)\b|read-only file system|permission denied/i.exec(line);
    if (!match) continue;
    const code = match[1]?.toUpperCase() ?? (/read-only/i.test(match[0]) ? "EROFS" : "EACCES");
    const quoted = /'(\/[^']+)'|"(\/[^"]+)"/.exec(line.slice(match.index));
    const path = quoted?.[1] ?? quoted?.[2];
    // npm says `code EROFS` first and the path a few lines on: the line that names one wins.
    if (path !== undefined) return { code, path };
    // "permission denied" alone is as often an API's 403 as a file: only a read-only one counts without a path.
    if (code === "EROFS") found ??= { code, path };
  }
  return found;
}

/** One line: the server, what the sandbox refused, and the setting that allows it. */
export function refusedWriteHint(
  config: ServerConfig,
  refused: { code: string; path: string | undefined },
  where: { cairnHome?: string | undefined; stateFolder?: string | undefined } = {},
): string {
  // The folder, not the file: servers write a temporary file beside the real one and rename it.
  const what = refused.path === undefined ? `a write (${refused.code})` : `a write in ${path.dirname(refused.path)} (${refused.code})`;
  const folder = refused.path === undefined ? "the folder it writes" : "that folder";
  if (refused.path !== undefined && where.cairnHome !== undefined && where.stateFolder !== undefined && inside(where.cairnHome, refused.path)) {
    // writablePaths refuses CAIRN_HOME (settings, sessions): the state folder is the place.
    return `MCP server ${config.name} was refused ${what} by the sandbox: CAIRN_HOME is hidden from servers; point the server at its state folder ${where.stateFolder} instead (its entry's "env" in ${config.file}).`;
  }
  if (config.source === "project") {
    return `MCP server ${config.name} was refused ${what} by the sandbox: a project's server may write only the workspace and its state folder; to allow more, move its entry to your mcp_settings.json and add the folder to its "writablePaths" (or set "sandbox": false there).`;
  }
  return `MCP server ${config.name} was refused ${what} by the sandbox: add ${folder} to "writablePaths" on its entry in ${config.file} (or set "sandbox": false there).`;
}

function inside(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
