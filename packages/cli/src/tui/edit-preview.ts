import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { applyDiff, resolveWorkspacePath, type IgnoreRules } from "@cairn/core";
import { diffHunks, type DiffLine } from "./line-diff.js";

/** What an edit call would change, computed from the file as it is before the call runs. */
export type EditPreview = {
  path: string;
  created: boolean;
  added: number;
  removed: number;
  lines: DiffLine[];
  /** Set when the edit cannot apply as written (the tool will report it too). */
  problem?: string;
};

/** Files larger than this are not diffed for display (the edit still runs). */
const MAX_PREVIEW_BYTES = 2 * 1024 * 1024;

function shown(cwd: string, absolute: string): string {
  const relative = path.relative(cwd, absolute);
  return relative === "" || relative.startsWith("..") || path.isAbsolute(relative) ? absolute : relative.split(path.sep).join("/");
}

function readCurrent(absolute: string): { text: string } | { missing: true } | { tooLarge: true } {
  const stat = statSync(absolute, { throwIfNoEntry: false });
  if (!stat || !stat.isFile()) return { missing: true };
  if (stat.size > MAX_PREVIEW_BYTES) return { tooLarge: true };
  return { text: readFileSync(absolute, "utf8") };
}

type EditFailure = Extract<ReturnType<typeof applyDiff>, { ok: false }>["failure"];

/** Why replace_in_file will refuse this diff, in a few words ("SEARCH block 2 not found"). */
function whyItFails(failure: EditFailure): string {
  if (failure.parse) return `the diff is malformed${failure.parse.line > 0 ? ` at its line ${failure.parse.line}` : ""}`;
  const reasons = failure.blocks.map((f) => {
    switch (f.kind) {
      case "no-match":
        return `SEARCH block ${f.block} not found`;
      case "ambiguous":
        return `SEARCH block ${f.block} matches ${f.total} places`;
      case "overlap":
        return `SEARCH blocks ${f.other} and ${f.block} overlap`;
      case "empty-search":
        return `SEARCH block ${f.block} is empty`;
    }
  });
  const more = reasons.length > 2 ? `, and ${reasons.length - 2} more` : "";
  return reasons.slice(0, 2).join("; ") + more;
}

/**
 * The diff an edit tool call would make (write_to_file, replace_in_file), or undefined for other
 * tools and for inputs that are not an edit. Synchronous on purpose: it runs inside the task's
 * event listener, before the tool touches the file. Like the core's live previews, it does not
 * read files outside the workspace or hidden by the ignore files before the call is approved.
 */
export function editPreview(cwd: string, tool: string, input: Record<string, unknown>, ignore?: IgnoreRules): EditPreview | undefined {
  if (tool !== "write_to_file" && tool !== "replace_in_file") return undefined;
  if (typeof input.path !== "string" || input.path === "") return undefined;
  const { absolute, external } = resolveWorkspacePath(cwd, input.path);
  const display = shown(cwd, absolute);
  if (external || ignore?.ignores(absolute)) return { path: display, created: false, added: 0, removed: 0, lines: [], problem: external ? "outside the workspace: not previewed" : "ignored by .cairnignore: not previewed" };
  let current: ReturnType<typeof readCurrent>;
  try {
    current = readCurrent(absolute);
  } catch (error) {
    return { path: display, created: false, added: 0, removed: 0, lines: [], problem: `cannot read it: ${(error as Error).message.split("\n")[0]}` };
  }
  if ("tooLarge" in current) return { path: display, created: false, added: 0, removed: 0, lines: [], problem: "too large to preview" };

  if (tool === "write_to_file") {
    if (typeof input.content !== "string") return undefined;
    const before = "text" in current ? current.text : "";
    return { path: display, created: !("text" in current), ...diffHunks(before, input.content) };
  }
  if (typeof input.diff !== "string") return undefined;
  if (!("text" in current)) return { path: display, created: false, added: 0, removed: 0, lines: [], problem: `this edit will fail: ${display} does not exist` };
  const applied = applyDiff(current.text, input.diff);
  if (!applied.ok) return { path: display, created: false, added: 0, removed: 0, lines: [], problem: `this edit will fail: ${whyItFails(applied.failure)}` };
  return { path: display, created: false, ...diffHunks(current.text, applied.content) };
}
