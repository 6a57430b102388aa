import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { IgnoreRules } from "../policy/ignore-rules.js";
import { displayPath, realPath } from "../policy/workspace.js";
import { realPathOfName, refusalFor } from "./files/index.js";
import { lossyName, shownName } from "../disk/byte-names.js";
import { MatchCollector } from "./search/collect-matches.js";
import { formatMatches } from "./search/format-matches.js";
import { ripgrepBinary, ripgrepMissingMessage, runRipgrep } from "./search/ripgrep.js";
import { verifyMatches } from "./search/verify-matches.js";
import {
  CONTEXT_LINES,
  describeRipgrepError,
  describeRipgrepWarnings,
  ripgrepArgs,
} from "./search/search-args.js";
import { defineTool, type ToolResult } from "./tool.js";
import { thousands } from "../text/thousands.js";

/** Matching lines shown with their context. */
const SHOW_LIMIT = 300;
/** Past this many matching lines (10× what is shown) rg is stopped and the count becomes "at least". */
const COUNT_LIMIT = 3_000;
/** Longer lines are cut to a window around the match. */
const MAX_LINE_CHARS = 500;
/** The result stops at whole groups before this many characters, below the wrapper's bound. */
const MAX_OUTPUT_CHARS = 80_000;

const parameters = z.object({
  path: z.string().describe('Folder or file to search, relative to the workspace; "." for all of it.'),
  regex: z.string().min(1).describe("Rust regex, matched per line."),
  file_pattern: z
    .string()
    .optional()
    .describe('Glob of files to search, e.g. "*.ts" or "*.{ts,tsx}".'),
});

const description = `Search files for a regular expression (ripgrep, Rust syntax: no look-around or backreferences; (?i) for case-insensitive; matched one line at a time).
Results are grouped by file, with line numbers and a line of context; ">" marks matches. Skips .gitignore'd and .cairnignore'd files, binaries and dependency/build folders (node_modules/, .git/, dist/ ...) unless given as the path. Shows at most ${SHOW_LIMIT} matches: narrow with the regex, path or file_pattern.

Example:
<search_files>
<path>src</path>
<regex>function\\s+parse\\w*\\(</regex>
<file_pattern>*.ts</file_pattern>
</search_files>`;

export const searchFilesTool = defineTool({
  name: "search_files",
  description,
  parameters,
  kind: "read",
  modes: ["act", "plan"],
  access: (input) => [{ type: "read", path: input.path }],
  summarize: (input) =>
    `search "${input.regex}" in ${input.path === "" ? "." : input.path}${input.file_pattern ? ` (${input.file_pattern})` : ""}`,
  async execute(input, ctx) {
    const root = ctx.resolvePath(input.path);
    const shownRoot = displayPath(ctx.cwd, root);
    const rootStats = await stat(root).catch(() => undefined);
    if (rootStats === undefined) {
      return failure(`Path not found: ${shownRoot}. Use list_files on its parent folder to see what exists.`);
    }
    const place = shownRoot === "." ? "the workspace" : rootStats.isDirectory() ? folderName(shownRoot) : shownRoot;
    if (ctx.ignore.ignores(root)) {
      return failure(`${place} is blocked by ${blockingFiles(ctx.ignore)}; it cannot be searched. Search another folder.`);
    }
    const rootRefusal = refusalFor(ctx, root, realPath(root) ?? root, place, "read");
    if (rootRefusal !== undefined) return failure(rootRefusal);
    const binary = await ripgrepBinary();
    if (binary === undefined) return failure(ripgrepMissingMessage);

    const ignoreFiles = ctx.ignore.files;
    const args = ripgrepArgs({
      regex: input.regex,
      root: shownRoot,
      filePattern: input.file_pattern,
      ignoreFiles: ignoreFiles.map((name) => path.join(ctx.cwd, name)),
    });
    const collector = new MatchCollector({
      cwd: ctx.cwd,
      // rg applies the ignore files too, but by name, with its own glob semantics (and a
      // file_pattern glob overrides them): the policy has the last word on every file, judged by
      // its real path, so a link to an ignored or outside file is blocked like the file itself.
      // A name that is not UTF-8 is resolved by its bytes and judged as the rules read it (see disk/byte-names.ts).
      isBlocked: (absolute) => {
        const real = realPathOfName(absolute);
        return real === undefined || refusalFor(ctx, lossyName(absolute), lossyName(real), absolute, "read") !== undefined;
      },
      keepLimit: SHOW_LIMIT,
      countLimit: COUNT_LIMIT,
      maxLineChars: MAX_LINE_CHARS,
    });
    const run = await runRipgrep(binary, args, { cwd: ctx.cwd, signal: ctx.signal, onLine: collector.onLine });
    const collected = collector.collected;
    if (!run.stopped && run.exitCode === 2 && !collected.sawSummary) return failure(describeRipgrepError(run.stderr));
    // A name that is not UTF-8 is shown with its bytes escaped (f\xff.txt).
    const display = (absolute: string) => shownName(displayPath(ctx.cwd, absolute));
    const verified = await verifyMatches(collected.files, ctx, display);
    const droppedMatches = verified.dropped.reduce((sum, file) => sum + file.lines.filter((line) => line.isMatch).length, 0);
    const found = {
      files: verified.files,
      totalMatches: collected.totalMatches - droppedMatches,
      totalFiles: collected.totalFiles - verified.dropped.length,
    };

    const warning = run.exitCode === 2 ? describeRipgrepWarnings(run.stderr) : undefined;
    const where = `in ${place}${input.file_pattern ? ` (files matching ${input.file_pattern})` : ""}`;
    if (found.totalMatches === 0) {
      const lines = [`No matches for /${input.regex}/ ${where}. Ignored files and dependency/build folders were not searched.`];
      if (warning !== undefined) lines.push(warning);
      return { content: lines.join("\n") };
    }

    const formatted = formatMatches(found.files, {
      display,
      context: CONTEXT_LINES,
      maxChars: MAX_OUTPUT_CHARS,
    });
    const atLeast = run.stopped ? "at least " : "";
    const total = `${atLeast}${plural(found.totalMatches, "match", "matches")} in ${atLeast}${plural(found.totalFiles, "file", "files")}`;
    const header =
      formatted.shownMatches < found.totalMatches || run.stopped
        ? `[Showing ${thousands(formatted.shownMatches)} of ${total}. Narrow the search with a more specific regex, path or file_pattern.]`
        : `Found ${total}.`;
    const parts = [header, "", formatted.text];
    if (verified.dropped.length > 0) parts.push("", `[${plural(verified.dropped.length, "file", "files")} changed during the search and were left out; search again to see them.]`);
    if (warning !== undefined) parts.push("", warning);
    return { content: parts.join("\n") };
  },
});

function blockingFiles(ignore: IgnoreRules): string {
  const files = ignore.files;
  return files.length > 0 ? files.join(" / ") : ".cairnignore";
}

function plural(n: number, one: string, many: string): string {
  return `${thousands(n)} ${n === 1 ? one : many}`;
}

function folderName(shown: string): string {
  return shown.endsWith("/") ? shown : `${shown}/`;
}

function failure(content: string): ToolResult {
  return { content, isError: true };
}
