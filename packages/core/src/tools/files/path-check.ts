import { isInside, realPath } from "../../policy/workspace.js";
import type { IgnoreRules, LinkVerdict } from "../../policy/ignore-rules.js";
import type { TextFiles } from "./text-files.js";

/** What a file tool needs to judge a path at the moment it uses it (a ToolContext is one). */
export type Boundary = {
  /** The workspace root. */
  cwd: string;
  ignore: IgnoreRules;
  /** The task's own folder of spilled output, readable though outside the workspace. */
  scratchDir?: string | undefined;
  /** Real folders outside the workspace readable without approval (the listed skills' folders). */
  readRoots?: readonly string[] | undefined;
  /** The call was approved as reaching outside the workspace. */
  outsideApproved?: boolean | undefined;
  /** The host's own text files (an editor's buffers); writes of workspace files go there instead of to disk. */
  files?: TextFiles | undefined;
};

export type FileUse = "read" | "edit";

export type Refusal = { ok: false; message: string };

/**
 * Why the file at `real` may not be used now, or undefined when it may. `absolute` is the path as
 * the tool was given it, `real` where it leads (symlinks and /proc links followed, or the path an
 * opened file descriptor really has). Both are held to the ignore rules as they are, no link
 * followed again (so the verdict is about the file in hand); `real` to the boundary:
 * inside the workspace, in the task's own scratch folder for reads, or anywhere when the call
 * was approved as reaching outside.
 */
export function refusalFor(boundary: Boundary, absolute: string, real: string, shown: string, use: FileUse): string | undefined {
  // `real` is already resolved (or the kernel's path of an open descriptor): judged as it is.
  if (boundary.ignore.ignoresAsWritten(absolute) || boundary.ignore.ignoresAsWritten(real)) {
    return `${shown} is blocked by ${ignoreFileNames(boundary)}; the person has put it out of reach. Do not try to access it another way; work without it.`;
  }
  // A hard link is the ignored file under a name no rule matches: judged by what it is too.
  const linked = linkRefusal(boundary, boundary.ignore.ignoresLinkedAt(real), shown);
  if (linked !== undefined) return linked;
  if (boundary.outsideApproved === true) return undefined;
  const root = realPath(boundary.cwd) ?? boundary.cwd;
  if (isInside(root, real)) return undefined;
  if (use === "read" && boundary.scratchDir !== undefined) {
    const scratch = realPath(boundary.scratchDir);
    if (scratch !== undefined && isInside(scratch, real)) return undefined;
  }
  if (use === "read" && boundary.readRoots?.some((root) => isInside(root, real))) return undefined;
  return `${shown} leads outside the workspace (to ${real}), and this call was approved for a path inside it; a link may have changed since. Check it with list_files; to use files outside the workspace, ask the person.`;
}

/** Why a file may not be used for what its identity says (see `IgnoreRules.ignoresLinked`), or undefined. */
export function linkRefusal(boundary: Boundary, verdict: LinkVerdict, shown: string): string | undefined {
  if (verdict === undefined) return undefined;
  const files = ignoreFileNames(boundary);
  if (verdict === "ignored") return `${shown} is a hard link of a file blocked by ${files} (the same file under another name); the person has put it out of reach. Do not try to access it another way; work without it.`;
  return `${shown} has other names (hard links), and the workspace is too large to check them against ${files}, so it cannot be used. Work without it, or ask the person to narrow ${files}.`;
}

/** The ignore files a refusal names, ".cairnignore" when none exists yet. */
function ignoreFileNames(boundary: Boundary): string {
  return boundary.ignore.files.join(" / ") || ".cairnignore";
}

export function refusal(message: string): Refusal {
  return { ok: false, message };
}
