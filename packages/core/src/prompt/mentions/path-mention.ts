import type { Dirent, Stats } from "node:fs";
import { open, readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { IgnoreRules } from "../../policy/ignore-rules.js";
import { resolveWorkspacePath } from "../../policy/workspace.js";
import { documentKind, extractDocumentText } from "../../tools/read-document.js";
import { attr, type Expansion, formatBytes, headBytes, type MentionLimits, refused } from "./limits.js";

/** A NUL byte in this many leading bytes marks a binary file (git's heuristic, as read_file). */
const BINARY_SNIFF_BYTES = 8 * 1024;

export type PathContext = { cwd: string; ignore: IgnoreRules; limits: MentionLimits };

/**
 * `@/path` and `@"path"`: a file's content or a folder's listing. The path is always taken
 * relative to the workspace, and the same boundary as the file tools applies: nothing outside
 * the workspace (symlinks followed) and nothing .cairnignore blocks.
 */
export async function expandPath(raw: string, relative: string, ctx: PathContext): Promise<Expansion> {
  const { absolute, external } = resolveWorkspacePath(ctx.cwd, relative === "" ? "." : relative);
  if (external) return refused(raw, "the path is outside the workspace, and mentions only read inside it.");
  if (ctx.ignore.ignores(absolute)) return refused(raw, `the path is blocked by ${ctx.ignore.files.join(" and ") || ".cairnignore"}.`);
  const shown = relative === "" ? "." : relative;
  let stats: Stats;
  try {
    stats = await stat(absolute);
  } catch {
    return refused(raw, `there is no file or folder "${shown}" in the workspace.`);
  }
  if (stats.isDirectory()) return listFolder(raw, absolute, shown, ctx);
  if (!stats.isFile()) return refused(raw, `"${shown}" is not a regular file.`);
  return inlineFile(raw, absolute, shown, stats.size, ctx.limits.fileBytes);
}

async function inlineFile(raw: string, absolute: string, shown: string, size: number, maxBytes: number): Promise<Expansion> {
  const kind = documentKind(absolute);
  if (kind === "image") return { ...refused(raw, `"${shown}" is an image; ask for it to be read with read_file, which shows pictures to models that take them.`), mentioned: [shown] };
  let text: string;
  let total = size;
  if (kind === "pdf" || kind === "docx") {
    try {
      text = await extractDocumentText(absolute, kind);
    } catch (error) {
      return refused(raw, `could not extract text from "${shown}" (${(error as Error).message}).`);
    }
    total = Buffer.byteLength(text);
  } else {
    const data = await readHead(absolute, Math.min(size, maxBytes + 4));
    if (data.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { ...refused(raw, `"${shown}" is a binary file (${formatBytes(size)}).`), mentioned: [shown] };
    text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(data);
  }
  const notes: string[] = [];
  const head = headBytes(text, maxBytes);
  let content = head.text;
  if (head.cut || total > maxBytes) {
    const shownBytes = Buffer.byteLength(content);
    const note = `${raw}: showing the first ${formatBytes(shownBytes)} of ${formatBytes(total)}.`;
    notes.push(note);
    content = `${content}${content.endsWith("\n") ? "" : "\n"}[Showing the first ${formatBytes(shownBytes)} of ${formatBytes(total)}. Use read_file with start_line/end_line for the rest.]`;
  }
  return { block: `<file_content path="${attr(shown)}">\n${content}${content.endsWith("\n") ? "" : "\n"}</file_content>`, notes, mentioned: [shown] };
}

async function readHead(file: string, bytes: number): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    let filled = 0;
    while (filled < bytes) {
      const { bytesRead } = await handle.read(buffer, filled, bytes - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** One level, sorted by name, folders marked with "/", entries .cairnignore blocks marked 🔒 (as list_files). */
async function listFolder(raw: string, absolute: string, shown: string, ctx: PathContext): Promise<Expansion> {
  let entries: Dirent[];
  try {
    entries = await readdir(absolute, { withFileTypes: true });
  } catch (error) {
    return refused(raw, `could not list "${shown}" (${(error as Error).message}).`);
  }
  const names = await Promise.all(
    entries.map(async (entry) => {
      const full = path.join(absolute, entry.name);
      const folder = entry.isDirectory() || (entry.isSymbolicLink() && (await stat(full).then((s) => s.isDirectory(), () => false)));
      return { name: folder ? `${entry.name}/` : entry.name, blocked: ctx.ignore.ignores(full) };
    }),
  );
  names.sort((a, b) => a.name.localeCompare(b.name, "en", { sensitivity: "base" }) || (a.name < b.name ? -1 : 1));
  const shownEntries = names.slice(0, ctx.limits.folderEntries).map((e) => `${e.blocked ? "🔒 " : ""}${e.name}`);
  const notes: string[] = [];
  if (names.length === 0) shownEntries.push("(empty folder)");
  if (names.length > ctx.limits.folderEntries) {
    const more = names.length - ctx.limits.folderEntries;
    shownEntries.push(`[… and ${more} more entries. Use list_files to see them.]`);
    notes.push(`${raw}: listed the first ${ctx.limits.folderEntries} of ${names.length} entries.`);
  }
  if (names.some((e) => e.blocked)) shownEntries.push(`[🔒 = blocked by ${ctx.ignore.files.join(" and ")}: the name is shown, its contents cannot be read]`);
  const folderPath = shown === "." ? "./" : `${shown}/`;
  return { block: `<folder_content path="${attr(folderPath)}">\n${shownEntries.join("\n")}\n</folder_content>`, notes, mentioned: shown === "." ? [] : [folderPath] };
}
