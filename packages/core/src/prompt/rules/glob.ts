/**
 * Glob matching for rules' `paths:` front matter, against workspace-relative paths with `/`.
 * Node 20's `path.matchesGlob` prints an ExperimentalWarning, so this is a small translator:
 *
 * - `*` any run of characters except `/`; `?` one such character; `[abc]`, `[!a-z]` classes;
 * - `**` as a whole segment: any number of folders (`src/**` = everything below src,
 *   `**\/test/*.ts` = at any depth);
 * - `{a,b}` alternatives (nestable); `\x` a literal x;
 * - a glob without `/` matches a name at any depth (`*.md` = every Markdown file), as in
 *   .gitignore; a leading `/` or `./` anchors it to the workspace root; a trailing `/` means
 *   everything below that folder. Dotfiles match like any other name.
 */

/** A compiled glob, or the reason it could not be compiled. */
export type CompiledGlob = { glob: string; regex: RegExp } | { glob: string; error: string };

export function compileGlob(glob: string): CompiledGlob {
  let pattern = glob.trim();
  if (pattern === "") return { glob, error: "empty pattern" };
  let anchored = false;
  while (pattern.startsWith("./")) {
    pattern = pattern.slice(2);
    anchored = true;
  }
  if (pattern.startsWith("/")) {
    pattern = pattern.replace(/^\/+/, "");
    anchored = true;
  }
  if (pattern.endsWith("/")) pattern += "**";
  if (!anchored && !pattern.includes("/")) pattern = `**/${pattern}`;
  const source = translate(pattern);
  if (typeof source !== "string") return { glob, error: source.error };
  return { glob, regex: new RegExp(`^${source}$`) };
}

/** True when the workspace-relative path (with `/`) matches the compiled glob. */
export function globMatches(compiled: CompiledGlob, relativePath: string): boolean {
  if (!("regex" in compiled)) return false;
  return compiled.regex.test(normalizeRelative(relativePath));
}

/** `./a\\b` → `a/b`: the form globs are matched against. */
export function normalizeRelative(relativePath: string): string {
  return relativePath.replace(/\\/g, "/").replace(/^(\.\/)+/, "").replace(/^\/+/, "");
}

function translate(pattern: string): string | { error: string } {
  let out = "";
  let depth = 0;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === "*") {
      let j = i;
      while (pattern[j] === "*") j++;
      const wholeSegment = j - i >= 2 && (i === 0 || pattern[i - 1] === "/") && (j === pattern.length || pattern[j] === "/");
      if (!wholeSegment) {
        out += "[^/]*";
      } else if (pattern[j] === "/") {
        out += "(?:[^/]*/)*"; // zero or more folders
        j++;
      } else {
        out += ".*";
      }
      i = j;
      continue;
    }
    if (c === "?") {
      out += "[^/]";
      i++;
      continue;
    }
    if (c === "[") {
      const end = classEnd(pattern, i);
      if (end === -1) {
        out += "\\[";
        i++;
        continue;
      }
      let body = pattern.slice(i + 1, end);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      out += `[${negated ? "^" : ""}${body.replace(/\\/g, "\\\\").replace(/\^/g, "\\^")}]`;
      i = end + 1;
      continue;
    }
    if (c === "{") {
      depth++;
      out += "(?:";
      i++;
      continue;
    }
    if (c === "}" && depth > 0) {
      depth--;
      out += ")";
      i++;
      continue;
    }
    if (c === "," && depth > 0) {
      out += "|";
      i++;
      continue;
    }
    if (c === "\\" && i + 1 < pattern.length) {
      out += escapeRegExp(pattern[i + 1] as string);
      i += 2;
      continue;
    }
    out += escapeRegExp(c);
    i++;
  }
  if (depth > 0) return { error: `unclosed "{"` };
  return out;
}

/** Index of the `]` closing a class opened at `start`, or -1. A `]` right after `[` or `[!` is literal. */
function classEnd(pattern: string, start: number): number {
  let j = start + 1;
  if (pattern[j] === "!" || pattern[j] === "^") j++;
  if (pattern[j] === "]") j++;
  const end = pattern.indexOf("]", j);
  if (end === -1 || pattern.slice(start, end).includes("/")) return -1;
  return end;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
