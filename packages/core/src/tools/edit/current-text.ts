import { existsSync } from "node:fs";
import { displayPath, resolveWorkspacePath } from "../../policy/workspace.js";
import { readCheckedSync, refusalFor, type HostTexts } from "../files/index.js";
import type { PreviewContext } from "../tool.js";
import { notePreviewed } from "./previewed-file.js";

/** A NUL byte in this many leading bytes marks a binary file. */
const BINARY_SNIFF_BYTES = 8 * 1024;

/**
 * Files larger than this get no preview: it travels in an event to every host and into the
 * task's journal, and nobody reviews a diff of megabytes in an approval prompt anyway.
 */
export const PREVIEW_MAX_BYTES = 512 * 1024;

/** Why an existing file's text cannot be shown (the edit tools say what that means for their edit). */
export type UnshownText = "binary" | "not_utf8" | "too_large";

/**
 * What an edit preview starts from: the file's text as shown to the person, null for a file that
 * does not exist yet, `unshown` with why for a file whose text cannot be shown (binary, not UTF-8,
 * too large to show), or undefined when it must not be read before approval (outside the
 * workspace, ignored) or cannot be. Read before approval, so only through the same checks a tool's read has;
 * from the host's text (`ctx.hostTexts`) when the host has its own files, as the edit will read it.
 * What it read is noted in `ctx.previewed`, so the call can refuse to write over a file changed since.
 */
export function currentText(ctx: PreviewContext, path: string): { shown: string; text: string | null } | { shown: string; unshown: UnshownText } | undefined {
  const resolved = resolveWorkspacePath(ctx.cwd, path);
  if (resolved.external) return undefined;
  const shown = displayPath(ctx.cwd, resolved.absolute);
  const real = resolved.real;
  if (real === undefined) return undefined;
  if (!existsSync(real)) {
    notePreviewed(ctx.previewed, resolved.absolute, real, null);
    return { shown, text: null };
  }
  const bytes = ctx.hostTexts === undefined ? readCheckedSync({ cwd: ctx.cwd, ignore: ctx.ignore }, resolved.absolute) : hostBytes(ctx, ctx.hostTexts, resolved.absolute, real);
  if (bytes === undefined) return undefined;
  notePreviewed(ctx.previewed, resolved.absolute, real, bytes);
  if (bytes.length > PREVIEW_MAX_BYTES) return { shown, unshown: "too_large" };
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { shown, unshown: "binary" };
  try {
    return { shown, text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return { shown, unshown: "not_utf8" };
  }
}

/**
 * The host's text of `real`, read ahead through the same checks (readHostTexts). A file it lacks gets
 * no preview: the disk's text may not be what the edit will read, and a diff of it would mislead.
 */
function hostBytes(ctx: PreviewContext, texts: HostTexts, absolute: string, real: string): Buffer | undefined {
  // Checked again as the path is now, whatever the text was read for.
  if (refusalFor({ cwd: ctx.cwd, ignore: ctx.ignore }, absolute, real, absolute, "read") !== undefined) return undefined;
  const text = texts.get(real);
  return text === undefined ? undefined : Buffer.from(text, "utf8");
}

/** "a.txt is larger than 512 KiB", "a.bin is a binary file". */
export function unshownText(shown: string, why: UnshownText): string {
  switch (why) {
    case "binary":
      return `${shown} is a binary file`;
    case "not_utf8":
      return `${shown} is not UTF-8 text`;
    case "too_large":
      return `${shown} is larger than ${PREVIEW_MAX_BYTES / 1024} KiB`;
  }
}
