import type { Dirent, Stats } from "node:fs";
import { readdir, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { IgnoreRules } from "../../policy/ignore-rules.js";
import { resolveWorkspacePath } from "../../policy/workspace.js";
import { openChecked, type OpenedFile } from "../../tools/files/index.js";
import { documentKind, extractDocumentText, imagePart, maxImageBytes } from "../../tools/read-document.js";
import { formatBytes, headBytes } from "../../tools/text-bytes.js";
import { attr, type Expansion, type MentionLimits, refused } from "./limits.js";

/** A NUL byte in this many leading bytes marks a binary file (git's heuristic, as read_file). */
const BINARY_SNIFF_BYTES = 8 * 1024;

export type PathContext = { cwd: string; ignore: IgnoreRules; limits: MentionLimits; /** An image becomes a picture in the message (else it is refused). */ images?: boolean };

/**
 * `@/path` and `@"path"`: a file's content or a folder's listing. The path is always taken
 * relative to the workspace, and the same boundary as the file tools applies: nothing outside
 * the workspace (symlinks followed) and nothing .cairnignore blocks.
 */
export async function expandPath(raw: string, relative: string, ctx: PathContext): Promise<Expansion> {
  const { absolute, external } = resolveWorkspacePath(ctx.cwd, relative === "" ? "." : relative);
  if (external) return refused(raw, "the path is outside the workspace, and mentions only read inside it.");
  // The ignore rules judge the written path and the real one: a link to .env is .env.
  if (ctx.ignore.ignores(absolute)) return refused(raw, blockedReason(ctx));
  const shown = relative === "" ? "." : relative;
  let stats: Stats;
  try {
    stats = await stat(absolute);
  } catch {
    return refused(raw, `there is no file or folder "${shown}" in the workspace.`);
  }
  if (stats.isDirectory()) return listFolder(raw, absolute, shown, ctx);
  if (!stats.isFile()) return refused(raw, `"${shown}" is not a regular file.`);
  // Read only through a descriptor checked again on what it really is, at the moment of reading.
  let opened: OpenedFile;
  try {
    const outcome = await openChecked({ cwd: ctx.cwd, ignore: ctx.ignore }, absolute, shown);
    if (!outcome.ok) return refused(raw, ctx.ignore.ignores(absolute) ? blockedReason(ctx) : "it changed while being read, or leads outside the workspace.");
    opened = outcome;
  } catch (error) {
    return refused(raw, `could not read "${shown}" (${(error as Error).message}).`);
  }
  try {
    if (!opened.stats.isFile()) return refused(raw, `"${shown}" is not a regular file.`);
    return await inlineFile(raw, opened, shown, ctx.limits.fileBytes, ctx.images === true);
  } finally {
    await opened.handle.close();
  }
}

function blockedReason(ctx: PathContext): string {
  return `the path is blocked by ${ctx.ignore.files.join(" and ") || ".cairnignore"}.`;
}

async function inlineFile(raw: string, opened: OpenedFile, shown: string, maxBytes: number, images: boolean): Promise<Expansion> {
  const { handle, real } = opened;
  const size = opened.stats.size;
  const kind = documentKind(real);
  if (kind === "image") {
    if (!images) return { ...refused(raw, `"${shown}" is an image, and the current model does not take images; choose one that does (e.g. claude-sonnet-4-5, gpt-5).`), mentioned: [shown] };
    if (size > maxImageBytes) return { ...refused(raw, `"${shown}" is ${formatBytes(size)}, over the ${formatBytes(maxImageBytes)} a model accepts per image.`), mentioned: [shown] };
    return { block: `[Image ${shown} (${formatBytes(size)}), attached to this message]`, notes: [], mentioned: [shown], images: [imagePart(real, await handle.readFile())] };
  }
  let text: string;
  let total = size;
  if (kind === "pdf" || kind === "docx") {
    try {
      text = await extractDocumentText(await handle.readFile(), kind);
    } catch (error) {
      return refused(raw, `could not extract text from "${shown}" (${(error as Error).message}).`);
    }
    total = Buffer.byteLength(text);
  } else {
    const data = await readHead(handle, Math.min(size, maxBytes + 4));
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

async function readHead(handle: FileHandle, bytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(bytes);
  let filled = 0;
  while (filled < bytes) {
    const { bytesRead } = await handle.read(buffer, filled, bytes - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
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
