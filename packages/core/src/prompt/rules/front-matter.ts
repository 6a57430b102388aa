/**
 * The little of YAML front matter that rules files use, parsed without a YAML library:
 *
 *   ---
 *   paths: ["src/**", "test/**"]     (or a block list of "- glob" lines, or one string)
 *   globs: src/**\/*.ts, *.tsx        (Cursor's key; a string is split on commas outside {})
 *   alwaysApply: true                 (Cursor: applies whatever the globs say)
 *   description: anything             (other keys are ignored)
 *   ---
 *
 * Anything this cannot read is reported as a warning and the rule applies always, so a typo
 * never silently switches a rule off.
 */

export type RuleFrontMatter = {
  /** The file without its front matter. */
  body: string;
  /** Globs from `paths:` and `globs:`; absent when the rule applies always. */
  paths?: string[];
  /** Cursor's `alwaysApply: true`. */
  alwaysApply?: boolean;
  /** What was wrong with the front matter; the rule then applies always. */
  warning?: string;
};

const KEY_LINE = /^([A-Za-z_][\w-]*)\s*:(.*)$/;
const PATH_KEYS = new Set(["paths", "globs"]);

export function parseFrontMatter(raw: string): RuleFrontMatter {
  const text = raw.replace(/^\uFEFF/, "");
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return { body: text };
  const close = lines.findIndex((line, i) => i > 0 && (line.trimEnd() === "---" || line.trimEnd() === "..."));
  const block = close === -1 ? lines.slice(1) : lines.slice(1, close);
  // A Markdown file may open with a horizontal rule; without a single "key:" line it is not front matter.
  if (!block.some((line) => KEY_LINE.test(line))) return { body: text };
  if (close === -1) return { body: text, warning: 'front matter opened with "---" is never closed; the rule applies always' };
  const body = lines.slice(close + 1).join("\n").replace(/^\s*\n/, "");

  const globs: string[] = [];
  let sawPathKey = false;
  let alwaysApply: boolean | undefined;
  for (let i = 0; i < block.length; i++) {
    const match = KEY_LINE.exec(block[i] as string);
    if (!match) continue;
    const key = match[1] as string;
    const value = stripComment(match[2] as string).trim();
    if (key === "alwaysApply") {
      alwaysApply = value === "true";
      continue;
    }
    if (!PATH_KEYS.has(key)) continue;
    sawPathKey = true;
    if (value !== "") {
      const parsed = parseInlineValue(value);
      if (typeof parsed === "string") return { body, warning: `${key}: ${parsed}; the rule applies always` };
      globs.push(...parsed);
      continue;
    }
    // A block list: the "- item" lines that follow (indented or not).
    while (i + 1 < block.length) {
      const next = block[i + 1] as string;
      const item = /^\s*-\s+(.*)$/.exec(next) ?? /^\s*-$/.exec(next);
      if (!item) {
        if (next.trim() === "" || next.trim().startsWith("#")) {
          i++;
          continue;
        }
        break;
      }
      i++;
      const scalar = parseScalar(stripComment(item[1] ?? "").trim());
      if (typeof scalar !== "string" || scalar === "") return { body, warning: `${key}: list item "${next.trim()}" is not a glob; the rule applies always` };
      globs.push(scalar);
    }
  }

  const result: RuleFrontMatter = { body };
  if (alwaysApply !== undefined) result.alwaysApply = alwaysApply;
  if (!sawPathKey) return result;
  const cleaned = globs.map((g) => g.trim()).filter((g) => g !== "");
  if (cleaned.length === 0) return { ...result, warning: "paths: lists no globs; the rule applies always" };
  return { ...result, paths: cleaned };
}

/** `["a", 'b', c]` or `"a"` or `a, b`: the globs, or why it cannot be read. */
function parseInlineValue(value: string): string[] | string {
  if (value.startsWith("[")) {
    if (!value.endsWith("]")) return `"${value}" opens a list with "[" but does not close it`;
    const items = splitOutside(value.slice(1, -1));
    const globs: string[] = [];
    for (const item of items) {
      if (item.trim() === "") continue;
      const scalar = parseScalar(item.trim());
      if (typeof scalar !== "string") return scalar.error;
      globs.push(scalar);
    }
    return globs;
  }
  if (value.startsWith("{")) return `"${value}" is a mapping, not a list of globs`;
  const scalar = parseScalar(value);
  if (typeof scalar !== "string") return scalar.error;
  // A quoted string is one glob; a plain one may list several, comma-separated (Cursor's habit).
  return value.startsWith('"') || value.startsWith("'") ? [scalar] : splitOutside(scalar).map((s) => s.trim());
}

/** A YAML scalar: "double" (with \ escapes), 'single' ('' is a quote) or plain. */
function parseScalar(text: string): string | { error: string } {
  if (text.startsWith('"')) {
    let out = "";
    for (let i = 1; i < text.length; i++) {
      const c = text[i] as string;
      if (c === "\\" && i + 1 < text.length) {
        out += text[++i] as string;
        continue;
      }
      if (c === '"') return i === text.length - 1 ? out : { error: `unexpected text after the quoted string ${text}` };
      out += c;
    }
    return { error: `unterminated string ${text}` };
  }
  if (text.startsWith("'")) {
    let out = "";
    for (let i = 1; i < text.length; i++) {
      const c = text[i] as string;
      if (c === "'" && text[i + 1] === "'") {
        out += "'";
        i++;
        continue;
      }
      if (c === "'") return i === text.length - 1 ? out : { error: `unexpected text after the quoted string ${text}` };
      out += c;
    }
    return { error: `unterminated string ${text}` };
  }
  return text;
}

/** Splits on commas that are outside quotes and {braces}. */
function splitOutside(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === "{") depth++;
    else if (c === "}") depth = Math.max(0, depth - 1);
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Drops a " # comment" tail that is outside quotes (skills' front matter uses it too). */
export function stripComment(text: string): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1] as string))) return text.slice(0, i);
  }
  return text;
}
