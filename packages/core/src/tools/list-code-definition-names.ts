import type { Dirent, Stats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { displayPath } from "../policy/workspace.js";
import { readChecked } from "./files/index.js";
import { formatOutline, languagesForFile, outlineFile, sourceExtensions, type SourceOutline } from "./code-outline/index.js";
import { defineTool, type ToolContext, type ToolResult } from "./tool.js";

/** Files outlined per call (Cline's limit); a folder with more gets the first ones alphabetically. */
export const maxOutlineFiles = 50;
/** Larger files are listed with a note instead of parsed. */
export const maxOutlineFileBytes = 1024 * 1024;
/** Left-out file names spelled out in the cap note; the rest are counted. */
const maxNamedLeftOut = 50;
/** Subfolders named when a folder has no source files of its own. */
const maxNamedSubfolders = 20;

const parameters = z.object({
  path: z
    .string()
    .describe("A folder (its source files are outlined, not its subfolders) or one source file, relative to the workspace (or absolute)."),
});

const languageNames = "TypeScript/TSX, JavaScript (.js .jsx .mjs .cjs), Python, Go, Rust, Java, C, C++, C#, Ruby and PHP";

const description = `List the definitions in source code (classes, interfaces, types, enums, structs, traits, impls, modules and functions, and exported constants in JavaScript/TypeScript; methods indented under their class), each as the first line of its signature with its line number, e.g. "  20│   start(port: number): Promise<void>", grouped by file.
Give one source file, or a folder to outline the source files directly in it (not its subfolders; at most ${maxOutlineFiles} files, alphabetically). Reads ${languageNames}; other files are skipped. Functions inside functions are not listed.
Use it for an overview of unfamiliar code, then read_file the lines you need.

Example:
<list_code_definition_names>
<path>src/server</path>
</list_code_definition_names>`;

export const listCodeDefinitionNamesTool = defineTool({
  name: "list_code_definition_names",
  description,
  brief: "Outline a source file, or the source files directly in a folder: its classes, functions, methods and types with line numbers.",
  parameters,
  kind: "read",
  modes: ["act", "plan"],
  access: (input) => [{ type: "read", path: input.path }],
  summarize: (input) => `outline ${input.path === "" ? "." : input.path}`,
  async execute(input, ctx) {
    const target = ctx.resolvePath(input.path);
    const shown = displayPath(ctx.cwd, target);
    let stats: Stats;
    try {
      stats = await stat(target);
    } catch (error) {
      if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") throw error;
      return failure(`Path not found: ${shown}. Use list_files on its parent folder to see what exists.`);
    }

    if (stats.isFile()) {
      if (languagesForFile(target).length === 0) {
        return failure(
          `${shown} is not a source file this tool can outline (it reads ${sourceExtensions.join(" ")} files). Use read_file to read it.`,
        );
      }
      const { block } = await outlineOne(target, stats.size, ctx);
      return { content: block ?? `No definitions found in ${shown}.` };
    }
    if (!stats.isDirectory()) return failure(`${shown} is neither a file nor a folder; give a source file or a folder.`);
    return await outlineFolder(target, ctx);
  },
});

async function outlineFolder(folder: string, ctx: ToolContext): Promise<ToolResult> {
  const shownFolder = withSlash(displayPath(ctx.cwd, folder));
  let dirents: Dirent[];
  try {
    dirents = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if (errorCode(error) !== "EACCES" && errorCode(error) !== "EPERM") throw error;
    return failure(`Permission denied reading ${shownFolder}. Ask the user to make it readable, or outline another folder.`);
  }

  // Symlinks are not followed: a link could lead out of the workspace.
  const sources = dirents
    .filter((d) => d.isFile() && languagesForFile(d.name).length > 0)
    .map((d) => path.join(folder, d.name))
    .sort((a, b) => compareNames(path.basename(a), path.basename(b)));
  const allowed = sources.filter((file) => !ctx.ignore.ignores(file));
  const blocked = sources.length - allowed.length;

  if (allowed.length === 0) return { content: noSourcesMessage(shownFolder, dirents, blocked, ctx) };

  const chosen = allowed.slice(0, maxOutlineFiles);
  const blocks: string[] = [];
  const empty: string[] = [];
  for (const file of chosen) {
    ctx.signal.throwIfAborted();
    const size = await stat(file).then(
      (s) => s.size,
      () => undefined, // removed since the listing
    );
    if (size === undefined) continue;
    const { shown, block } = await outlineOne(file, size, ctx);
    if (block === undefined) empty.push(shown);
    else blocks.push(block);
  }

  const notes: string[] = [];
  if (empty.length > 0 && blocks.length > 0) notes.push(`[No definitions found in: ${empty.join(", ")}]`);
  if (allowed.length > chosen.length) {
    const rest = allowed.slice(chosen.length).map((file) => path.basename(file));
    const named = rest.slice(0, maxNamedLeftOut).join(", ");
    const more = rest.length > maxNamedLeftOut ? ` and ${rest.length - maxNamedLeftOut} more` : "";
    notes.push(
      `[Outlined the first ${chosen.length} of ${allowed.length} source files in ${shownFolder} (alphabetically); not outlined: ${named}${more}. Give one file's path to outline it.]`,
    );
  }
  if (blocked > 0) notes.push(`[${countOf(blocked, "file")} blocked by ${ignoreFileNames(ctx)} left out.]`);
  if (blocks.length === 0) {
    const none = `No definitions found in the ${countOf(empty.length, "source file")} of ${shownFolder}: ${empty.join(", ")}`;
    return { content: [none, ...notes].join("\n") };
  }
  return { content: [...blocks, notes.join("\n")].filter((part) => part !== "").join("\n\n") };
}

/** One file's outline block, or no block when it has no definitions. */
async function outlineOne(file: string, size: number, ctx: ToolContext): Promise<{ shown: string; block?: string }> {
  const shown = displayPath(ctx.cwd, file);
  const noted = (note: string) => ({ shown, block: formatOutline(shown, [], [note]) });
  if (size > maxOutlineFileBytes) {
    const megabytes = (size / 1024 / 1024).toFixed(1);
    return noted(`skipped: ${megabytes} MB is over the ${maxOutlineFileBytes / 1024 / 1024} MB limit; read parts of it with read_file instead`);
  }
  let outline: SourceOutline | undefined;
  try {
    // Read through a descriptor checked on its real path: a file swapped for a link to an
    // ignored or outside file after the listing is not read.
    const read = await readChecked(ctx, file, shown);
    if (!read.ok) return noted(read.message);
    outline = await outlineFile(file, read.data.toString("utf8"), { signal: ctx.signal });
  } catch (error) {
    ctx.signal.throwIfAborted();
    if (errorCode(error) === "EACCES" || errorCode(error) === "EPERM") return noted("permission denied");
    const reason = error instanceof Error ? error.message : String(error);
    return noted(`could not be parsed (${reason}); read it with read_file instead`);
  }
  if (outline === undefined || (outline.entries.length === 0 && !outline.hasErrors)) return { shown };
  const notes = outline.hasErrors ? ["has syntax errors: some definitions may be missing"] : [];
  return { shown, block: formatOutline(shown, outline.entries, notes) };
}

function noSourcesMessage(shownFolder: string, dirents: readonly Dirent[], blocked: number, ctx: ToolContext): string {
  if (blocked > 0) {
    const which = blocked === 1 ? "its only source file is" : `all ${blocked} of its source files are`;
    return `No source files to outline in ${shownFolder}: ${which} blocked by ${ignoreFileNames(ctx)}.`;
  }
  const subfolders = dirents
    .filter((d) => d.isDirectory())
    .map((d) => `${d.name}/`)
    .sort(compareNames);
  const lines = [
    `No source files directly in ${shownFolder}. This tool outlines ${languageNames} files in the folder itself, not in its subfolders.`,
  ];
  if (subfolders.length > 0) {
    const named = subfolders.slice(0, maxNamedSubfolders).join(", ");
    const more = subfolders.length > maxNamedSubfolders ? ` and ${subfolders.length - maxNamedSubfolders} more` : "";
    lines.push(`Its subfolders: ${named}${more}. Outline one of them, or use list_files to find source folders.`);
  } else {
    lines.push("Use list_files to find the folders that hold source code.");
  }
  return lines.join("\n");
}

function ignoreFileNames(ctx: ToolContext): string {
  return ctx.ignore.files.join(" / ") || ".cairnignore";
}

function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** Case-insensitive, then by code unit, like list_files. */
function compareNames(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function withSlash(shown: string): string {
  return shown === "." || shown.endsWith("/") ? shown : `${shown}/`;
}

function failure(content: string): ToolResult {
  return { content, isError: true };
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
