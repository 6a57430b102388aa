import { z } from "zod";
import { displayPath } from "../policy/workspace.js";
import { currentText, PREVIEW_MAX_BYTES, unshownText } from "./edit/current-text.js";
import { failureReason } from "./edit/failure-reason.js";
import { describeFailure } from "./edit/failure-report.js";
import { changedSincePreview } from "./edit/previewed-file.js";
import { applyDiff } from "./edit/streaming-applier.js";
import { describeSuccess } from "./edit/success-report.js";
import { openChecked, readOpenedBytes, writeChecked, type OpenedFile } from "./files/index.js";
import { defineTool, type ToolResult } from "./tool.js";

/** A NUL byte in this many leading bytes marks a binary file (git's heuristic, as read_file uses). */
const BINARY_SNIFF_BYTES = 8 * 1024;

const parameters = z.object({
  path: z.string().describe("File path, relative to the workspace (or absolute)."),
  diff: z
    .string()
    .describe("One or more SEARCH/REPLACE blocks."),
});

const description = `Edit part of an existing file with SEARCH/REPLACE blocks (for a new file or a rewrite of most of one, use write_to_file). Each block, markers on their own lines:
------- SEARCH
[exact lines from the file]
=======
[the lines to put in their place]
+++++++ REPLACE
1. SEARCH must match the file character for character (whitespace, indentation, comments): copy it, never abbreviate it.
2. Give SEARCH enough lines to match one place only; a SEARCH matching several places is refused.
3. Keep blocks small: the changed lines and a line or two around them. Several changes: several blocks in one call, in file order, not overlapping.
4. Empty REPLACE deletes. To move code, delete it in one block and insert it in another; to insert, repeat neighbouring lines in SEARCH and REPLACE with the new lines added.
The edit applies whole or not at all; on failure nothing changes and you are shown the file around the closest match.

Example:
<replace_in_file>
<path>src/app.ts</path>
<diff>
------- SEARCH
  return a();
=======
  return a() + b();
+++++++ REPLACE
</diff>
</replace_in_file>`;

export const replaceInFileTool = defineTool({
  name: "replace_in_file",
  description,
  parameters,
  rawParameters: ["diff"],
  kind: "edit",
  modes: ["act"],
  access: (input) => [{ type: "edit", path: input.path }],
  summarize: (input) => `edit ${input.path}`,
  preview(input, ctx) {
    const current = currentText(ctx, input.path);
    if (current === undefined) return undefined;
    // Without a diff the person still learns why: an edit that will fail is not approved blind.
    const unavailable = (reason: string) => ({ type: "diff_unavailable" as const, path: current.shown, reason });
    if ("unshown" in current) {
      const why = unshownText(current.shown, current.unshown);
      return unavailable(current.unshown === "too_large" ? `no diff shown: ${why}` : `this edit will fail: ${why}`);
    }
    if (current.text === null) return unavailable(`this edit will fail: ${current.shown} does not exist`);
    // The same edit code the call runs, in memory: the person sees exactly what would be written.
    const applied = applyDiff(current.text, input.diff);
    if (!applied.ok) return unavailable(`this edit will fail: ${failureReason(applied.failure)}`);
    if (Buffer.byteLength(applied.content) > PREVIEW_MAX_BYTES) return unavailable(`no diff shown: the edited ${current.shown} would be larger than ${PREVIEW_MAX_BYTES / 1024} KiB`);
    return { type: "diff", path: current.shown, old_text: current.text, new_text: applied.content };
  },
  async execute(input, ctx) {
    const absolute = ctx.resolvePath(input.path);
    const shown = displayPath(ctx.cwd, absolute);

    // Read through a checked descriptor: a symlink is edited through to its target (the link
    // stays), and only a target inside the boundary and not ignored is read or written.
    let opened: OpenedFile;
    try {
      const outcome = await openChecked(ctx, absolute, shown, "edit");
      if (!outcome.ok) return failure(outcome.message);
      opened = outcome;
    } catch (error) {
      if (isAccessDenied(error)) return failure(`Permission denied reading ${shown}. Ask the user to make it readable and writable.`);
      if (!isNotFound(error)) throw error;
      return failure(
        `File not found: ${shown}. replace_in_file only edits existing files; to create it, use write_to_file with its complete content. To check the path, use list_files on its folder.`,
      );
    }
    const { stats, real } = opened;
    let bytes: Buffer;
    try {
      if (stats.isDirectory()) return failure(`${shown} is a folder, not a file. Give the path of a file inside it.`);
      if (!stats.isFile()) return failure(`${shown} is not a regular file (a device, socket or pipe); it cannot be edited.`);
      bytes = await readOpenedBytes(ctx, opened);
    } catch (error) {
      if (!isAccessDenied(error)) throw error;
      return failure(`Permission denied reading ${shown}. Ask the user to make it readable and writable.`);
    } finally {
      await opened.handle.close();
    }
    // The person approved this diff applied to the text they were shown, not to whatever is there now.
    const changed = changedSincePreview(ctx, absolute, shown, { real, bytes });
    if (changed !== undefined) return failure(changed);
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
      return failure(`${shown} is a binary file (${bytes.length} bytes); replace_in_file edits text files only.`);
    }
    let original: string;
    try {
      // ignoreBOM keeps a byte-order mark in the text, so the edit can write it back.
      original = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return failure(
        `${shown} is not valid UTF-8 text, and editing it would alter the bytes that are not. Change it with a command that keeps its encoding (e.g. sed), or rewrite it with write_to_file.`,
      );
    }

    const result = applyDiff(original, input.diff);
    if (!result.ok) return failure(describeFailure(shown, result.source, result.failure));
    if (result.content === original) {
      return {
        content: `No changes: in every block REPLACE equals the text SEARCH matched, so ${shown} was left as it was.`,
      };
    }

    ctx.signal.throwIfAborted();
    try {
      const written = await writeChecked(ctx, absolute, shown, result.content, { mode: stats.mode, expectReal: real });
      if (!written.ok) return failure(written.message);
    } catch (error) {
      if (!isAccessDenied(error) && errorCode(error) !== "EROFS") throw error;
      return failure(`Permission denied writing ${shown}. Ask the user to make it writable.`);
    }
    // The errors this edit introduced, as the file's language server sees them (nothing when none, or no answer in time).
    const problems = await ctx.checks?.afterEdit(real, shown, original, result.content);
    const success = describeSuccess(shown, result.source, result);
    return { content: problems === undefined ? success : `${success}\n${problems}` };
  },
});

function failure(content: string): ToolResult {
  return { content, isError: true };
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

function isNotFound(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

function isAccessDenied(error: unknown): boolean {
  const code = errorCode(error);
  return code === "EACCES" || code === "EPERM";
}
