import path from "node:path";
import { z } from "zod";
import { displayPath } from "../policy/workspace.js";
import { currentText, PREVIEW_MAX_BYTES, unshownText } from "./edit/current-text.js";
import { changedSincePreview } from "./edit/previewed-file.js";
import { summarizeRewrite } from "./edit/rewrite-summary.js";
import { openChecked, readOpenedBytes, writeChecked } from "./files/index.js";
import { defineTool, type ToolResult } from "./tool.js";

/** Files up to this size are echoed back in the result, so the model sees exactly what is on disk. */
const ECHO_MAX_LINES = 50;
const ECHO_MAX_BYTES = 8 * 1024;

/** Markdown files legitimately start and end with fences; never unwrap them. */
const MARKDOWN_EXTENSIONS = new Set([".md", ".mdx", ".markdown"]);

const parameters = z.object({
  path: z.string().describe("File path, relative to the workspace (or absolute)."),
  content: z
    .string()
    .describe("The complete content, exactly as on disk; never partial."),
});

const description = `Create a file or replace all of its content (missing folders are created). Give the COMPLETE content, without omissions or placeholders such as "// rest unchanged": the file will hold exactly what you write. To change part of a file, use replace_in_file.
Returns whether it was created or updated, its line count and, for small files, the content as saved.

Example:
<write_to_file>
<path>src/greet.ts</path>
<content>
export function greet(name: string): string {
  return \`Hello, \${name}!\`;
}
</content>
</write_to_file>`;

export const writeToFileTool = defineTool({
  name: "write_to_file",
  description,
  parameters,
  rawParameters: ["content"],
  kind: "edit",
  modes: ["act"],
  access: (input) => [{ type: "edit", path: input.path }],
  summarize: (input) => `write ${input.path}`,
  preview(input, ctx) {
    // Without a diff the person still learns why: an edit that will fail is not approved blind.
    if (/[/\\]$/.test(input.path)) return { type: "diff_unavailable", path: input.path, reason: `this edit will fail: ${input.path} names a folder` };
    const current = currentText(ctx, input.path);
    if (current === undefined) return undefined;
    const unavailable = (reason: string) => ({ type: "diff_unavailable" as const, path: current.shown, reason });
    if (Buffer.byteLength(input.content) > PREVIEW_MAX_BYTES) return unavailable(`no diff shown: the new content is larger than ${PREVIEW_MAX_BYTES / 1024} KiB`);
    if ("unshown" in current) return unavailable(`no diff shown: ${unshownText(current.shown, current.unshown)}`);
    const unwrapped = MARKDOWN_EXTENSIONS.has(path.extname(input.path).toLowerCase()) ? undefined : unwrapCodeFence(input.content);
    return { type: "diff", path: current.shown, old_text: current.text, new_text: unwrapped?.inner ?? input.content };
  },
  async execute(input, ctx) {
    const absolute = ctx.resolvePath(input.path);
    const shown = displayPath(ctx.cwd, absolute);
    if (/[/\\]$/.test(input.path)) {
      return failure(`${input.path} names a folder. Give the path of a file, e.g. ${input.path}index.ts.`);
    }

    const unwrapped = MARKDOWN_EXTENSIONS.has(path.extname(absolute).toLowerCase())
      ? undefined
      : unwrapCodeFence(input.content);
    const content = unwrapped?.inner ?? input.content;

    // The current content, read through a checked descriptor: a symlink is written through to its
    // target (the link stays), and only a target inside the boundary and not ignored is touched.
    let previous: Buffer | undefined;
    let mode: number | undefined;
    let readFrom: string | undefined;
    try {
      const opened = await openChecked(ctx, absolute, shown, "edit");
      if (!opened.ok) return failure(opened.message);
      try {
        if (opened.stats.isDirectory()) {
          return failure(`${shown} is a folder. Give the path of a file inside it, e.g. ${shown}/index.ts.`);
        }
        if (!opened.stats.isFile()) return failure(`${shown} is not a regular file (a device, socket or pipe); it cannot be written.`);
        previous = await readOpenedBytes(ctx, opened);
        mode = opened.stats.mode;
        readFrom = opened.real;
      } finally {
        await opened.handle.close();
      }
    } catch (error) {
      const code = errorCode(error);
      if (code === "EACCES" || code === "EPERM") return failure(`Permission denied reading ${shown}. Ask the user to make it readable and writable.`);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      // A new file (or a part of its folder path is a file, which the write reports below).
    }
    // The person approved replacing the text they were shown: text typed or saved since is not overwritten unseen.
    const changed = changedSincePreview(ctx, absolute, shown, previous === undefined || readFrom === undefined ? undefined : { real: readFrom, bytes: previous });
    if (changed !== undefined) return failure(changed);

    const lines = countLines(content);
    if (previous !== undefined && previous.equals(Buffer.from(content, "utf8"))) {
      return { content: `No changes: ${shown} already has this content (${plural(lines, "line")}).` };
    }

    try {
      const written = await writeChecked(ctx, absolute, shown, content, { mode, expectReal: readFrom });
      if (!written.ok) return failure(written.message);
    } catch (error) {
      const code = errorCode(error);
      if (code === "EEXIST" || code === "ENOTDIR") {
        return failure(`Cannot create ${shown}: part of its folder path is an existing file. Choose another path.`);
      }
      if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
        return failure(`Permission denied writing ${shown}. Ask the user to make it writable, or write elsewhere.`);
      }
      if (code === "EISDIR") return failure(`${shown} is a folder. Give the path of a file inside it, e.g. ${shown}/index.ts.`);
      throw error;
    }

    const summary =
      previous === undefined
        ? `Created ${shown} (${plural(lines, "line")}).`
        : `Updated ${shown} (${plural(lines, "line")}, was ${countLines(previous.toString("utf8"))}).`;
    const parts = [summary];
    if (unwrapped !== undefined) {
      parts.push(`Removed the \`\`\`${unwrapped.language} code fence wrapped around the content.`);
    }
    if (lines <= ECHO_MAX_LINES && Buffer.byteLength(content) <= ECHO_MAX_BYTES && content !== "") {
      parts.push(`<final_file_content path="${shown}">\n${content}${content.endsWith("\n") ? "" : "\n"}</final_file_content>`);
    } else if (previous !== undefined) {
      parts.push(summarizeRewrite(previous.toString("utf8"), content));
    }
    // The errors this edit introduced, as the file's language server sees them (nothing when none, or no answer in time).
    const problems = await ctx.checks?.afterEdit(readFrom ?? absolute, shown, previous?.toString("utf8"), content);
    if (problems !== undefined) parts.push(problems);
    return { content: parts.join("\n") };
  },
});

/**
 * When the model wraps the whole file in a markdown fence (```lang ... ```), returns what is inside.
 * Only a fence around everything counts: the first line opens it, the last non-blank line closes it,
 * and no line in between starts a fence, so files that merely contain fences are left alone.
 */
function unwrapCodeFence(content: string): { inner: string; language: string } | undefined {
  const opening = /^\s*```([^\s`]*)[^\S\r\n]*\r?\n/.exec(content);
  if (opening === null) return undefined;
  const body = content.slice(opening[0].length);
  const closing = /(^|\r?\n)```[^\S\r\n]*\s*$/.exec(body);
  if (closing === null) return undefined;
  const keptNewline = closing[1] ?? "";
  const inner = body.slice(0, closing.index) + keptNewline;
  if (/(^|\n)\s*```/.test(inner)) return undefined;
  return { inner, language: opening[1] ?? "" };
}

/** Lines as an editor counts them: a final line without a newline counts, an empty file has none. */
function countLines(text: string): number {
  if (text === "") return 0;
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count += 1;
  return text.endsWith("\n") ? count : count + 1;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function failure(content: string): ToolResult {
  return { content, isError: true };
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
