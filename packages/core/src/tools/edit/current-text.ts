import { existsSync } from "node:fs";
import { displayPath, realPath, resolveWorkspacePath } from "../../policy/workspace.js";
import { readCheckedSync } from "../files/index.js";
import type { PreviewContext } from "../tool.js";

/** A NUL byte in this many leading bytes marks a binary file. */
const BINARY_SNIFF_BYTES = 8 * 1024;

/**
 * Files larger than this get no preview: it travels in an event to every host and into the
 * task's journal, and nobody reviews a diff of megabytes in an approval prompt anyway.
 */
export const PREVIEW_MAX_BYTES = 512 * 1024;

/**
 * What an edit preview starts from: the file's text as shown to the person, null for a file that
 * does not exist yet, or undefined when it cannot be shown (outside the workspace, ignored,
 * binary, not UTF-8, too large to show). Read before approval, so only through the same checks a tool's read has.
 */
export function currentText(ctx: PreviewContext, path: string): { shown: string; text: string | null } | undefined {
  const resolved = resolveWorkspacePath(ctx.cwd, path);
  if (resolved.external) return undefined;
  const shown = displayPath(ctx.cwd, resolved.absolute);
  const real = realPath(resolved.absolute);
  if (real === undefined) return undefined;
  if (!existsSync(real)) return { shown, text: null };
  const bytes = readCheckedSync({ cwd: ctx.cwd, ignore: ctx.ignore }, resolved.absolute);
  if (bytes === undefined || bytes.length > PREVIEW_MAX_BYTES || bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return undefined;
  try {
    return { shown, text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return undefined;
  }
}
