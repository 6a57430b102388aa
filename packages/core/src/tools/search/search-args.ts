import { HEAVY_DIRS } from "../list-files.js";

/** Lines of context rg prints before and after each match. */
export const CONTEXT_LINES = 1;

/** The type name file_pattern globs are registered under (`--type-add`). */
const PATTERN_TYPE = "cairnpattern";

export type SearchArgs = {
  regex: string;
  /** The folder or file to search, as rg should be given it (relative to rg's working directory, or absolute). */
  root: string;
  filePattern?: string | undefined;
  /** Absolute paths of the .cairnignore/.clineignore files in force. */
  ignoreFiles: readonly string[];
};

/**
 * rg's arguments for one search. `--no-require-git` makes .gitignore count outside git repos too;
 * `--hidden` searches dotfiles, with .git and the other heavy folders excluded by glob.
 *
 * A file_pattern without "/" becomes a file type (`--type-add`), which keeps .gitignore and the
 * ignore files in force; a `-g` glob would override them (rg searches a git-ignored `x.gen.ts`
 * when given `-g '*.ts'`). A pattern with "/" has to be a glob, matched from the workspace root.
 */
export function ripgrepArgs(search: SearchArgs): string[] {
  const args = ["--json", "--no-config", "--context", String(CONTEXT_LINES), "--hidden", "--no-require-git"];
  for (const file of search.ignoreFiles) args.push("--ignore-file", file);
  let typed = false;
  for (const pattern of splitPatterns(search.filePattern ?? "")) {
    if (pattern.includes("/") || pattern.startsWith("!")) {
      args.push("--glob", pattern);
    } else {
      args.push("--type-add", `${PATTERN_TYPE}:${pattern}`);
      typed = true;
    }
  }
  if (typed) args.push("--type", PATTERN_TYPE);
  // Later globs win, so these exclusions come after any file_pattern glob.
  for (const dir of HEAVY_DIRS) args.push("--glob", `!${dir}/`);
  args.push("--regexp", search.regex, "--", search.root);
  return args;
}

/** Splits "*.ts, *.{js,jsx}" at the commas outside braces; models often list several patterns so. */
export function splitPatterns(filePattern: string): string[] {
  const patterns: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of filePattern) {
    if (char === "{") depth += 1;
    if (char === "}") depth = Math.max(0, depth - 1);
    if (char === "," && depth === 0) {
      patterns.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  patterns.push(current);
  return patterns.map((pattern) => pattern.trim()).filter((pattern) => pattern !== "");
}

/** rg's fatal error (several lines on stderr) as one line for the model, saying what to change. */
export function describeRipgrepError(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  if (stderr.includes("regex parse error")) {
    const reason = lines.find((line) => line.startsWith("error:"))?.slice("error:".length).trim() ?? "invalid syntax";
    const hint = /look-around|backreference/i.test(reason)
      ? "The regex is Rust syntax, which has no look-around ((?=, (?!, (?<=, (?<!) or backreferences (\\1); rewrite it without them."
      : "The regex is Rust syntax: escape ( ) [ ] { } . * + ? | ^ $ \\ with a backslash to match them literally.";
    return `Invalid regex: ${reason}. ${hint}`;
  }
  if (/literal "\\n" is not allowed/.test(stderr)) {
    return "Invalid regex: it contains a line break (\\n), but each line is searched on its own. Search for a single line of the text instead.";
  }
  const first = (lines[0] ?? "ripgrep failed without a message").replace(/^rg: /, "");
  if (first.startsWith("error parsing glob")) {
    return `Invalid file_pattern: ${first}. Give a glob such as *.ts or *.{ts,tsx}.`;
  }
  return `Search failed: ${first}`;
}

/** Non-fatal errors (unreadable files) as a one-line note after the results. */
export function describeRipgrepWarnings(stderr: string): string | undefined {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim().replace(/^rg: /, ""))
    .filter((line) => line !== "");
  const first = lines[0];
  if (first === undefined) return undefined;
  const more = lines.length > 1 ? ` (and ${lines.length - 1} more)` : "";
  return `[Some files could not be searched: ${first}${more}]`;
}
