import { stripComment } from "../rules/front-matter.js";

/**
 * The YAML front matter of a SKILL.md, parsed without a YAML library: the Agent Skills format uses
 * a flat mapping of scalars (`name`, `description`, `license`, `compatibility`, `allowed-tools`)
 * and one map of strings (`metadata`). Scalars may be plain, quoted, or block (`|`, `>`), and a
 * plain one may run on over indented lines, as written by the tools that make skills.
 *
 * Anything else (a line that is not `key: value`, a key given twice, a quote left open) is an
 * error: a skill whose front matter cannot be read is skipped with one notice rather than guessed.
 */

export type SkillFrontMatter = {
  fields: Record<string, string>;
  /** `metadata:`'s keys and values. */
  metadata?: Record<string, string>;
  /** The file without its front matter. */
  body: string;
};

export type ParsedSkillFile = { ok: true; front: SkillFrontMatter } | { ok: false; reason: string };

const KEY_LINE = /^([A-Za-z_][\w-]*)\s*:(?:\s+(.*)|\s*)$/;

export function parseSkillFile(raw: string): ParsedSkillFile {
  const lines = raw.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return { ok: false, reason: 'it does not begin with front matter ("---", then name: and description:, then "---")' };
  const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (close === -1) return { ok: false, reason: 'its front matter opened with "---" is never closed' };
  const block = lines.slice(1, close);
  const body = lines.slice(close + 1).join("\n");
  const fields: Record<string, string> = {};
  let metadata: Record<string, string> | undefined;
  for (let i = 0; i < block.length; i++) {
    const line = block[i] as string;
    if (isBlankOrComment(line)) continue;
    const match = KEY_LINE.exec(line);
    if (!match) return { ok: false, reason: `front matter line ${i + 2} is not "key: value" (${clip(line)})` };
    const key = match[1] as string;
    if (key in fields || (key === "metadata" && metadata)) return { ok: false, reason: `front matter gives "${key}" twice` };
    const rest = indentedAfter(block, i);
    i += rest.length;
    const inline = stripComment(match[2] ?? "").trim();
    if (key === "metadata") {
      const map = parseMap(inline, rest);
      if (typeof map === "string") return { ok: false, reason: `front matter "metadata": ${map}` };
      metadata = map;
      continue;
    }
    const value = parseValue(inline, rest);
    if (typeof value !== "string") return { ok: false, reason: `front matter "${key}": ${value.error}` };
    fields[key] = value;
  }
  return { ok: true, front: { fields, ...(metadata ? { metadata } : {}), body } };
}

/** The lines after `i` that belong to its value: indented ones and blank ones between them. */
function indentedAfter(block: readonly string[], i: number): string[] {
  let end = i + 1;
  let last = i;
  while (end < block.length) {
    const line = block[end] as string;
    if (line.trim() === "") {
      end++;
      continue;
    }
    if (!/^\s/.test(line)) break;
    last = end;
    end++;
  }
  return block.slice(i + 1, last + 1);
}

function parseValue(inline: string, rest: readonly string[]): string | { error: string } {
  if (/^[|>][+-]?\d?$/.test(inline)) return blockScalar(inline, rest);
  if (inline.startsWith("[") || inline.startsWith("{")) return { error: "a list or mapping where a text was expected" };
  if (inline.startsWith('"') || inline.startsWith("'")) {
    // A quoted string may run on over indented lines; its line breaks fold to spaces.
    const text = [inline, ...rest.map((l) => l.trim())].join(" ").trim();
    return quoted(text);
  }
  const continued = rest.map((l) => stripComment(l).trim()).filter((l) => l !== "");
  if (continued.some((l) => /^- /.test(l) || KEY_LINE.test(l))) return { error: "a nested list or mapping where a text was expected" };
  return [inline, ...continued].filter((p) => p !== "").join(" ");
}

/** `|` keeps line breaks, `>` folds them to spaces; the trailing break is kept once unless `-`. */
function blockScalar(indicator: string, rest: readonly string[]): string {
  const indent = Math.min(...rest.filter((l) => l.trim() !== "").map((l) => /^\s*/.exec(l)![0].length), Number.MAX_SAFE_INTEGER);
  const lines = rest.map((l) => l.slice(Math.min(indent, l.length)));
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  const text = indicator.startsWith("|") ? lines.join("\n") : lines.reduce((out, line) => (line === "" ? `${out}\n` : out === "" || out.endsWith("\n") ? out + line : `${out} ${line}`), "");
  return indicator.includes("-") || text === "" ? text : `${text}\n`;
}

function parseMap(inline: string, rest: readonly string[]): Record<string, string> | string {
  if (inline !== "") return "it must be a mapping of names to texts, on the indented lines below it";
  const map: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const line = rest[i] as string;
    if (isBlankOrComment(line)) continue;
    const match = KEY_LINE.exec(line.trim());
    if (!match) return `"${clip(line.trim())}" is not "key: value"`;
    const value = parseValue(stripComment(match[2] ?? "").trim(), []);
    if (typeof value !== "string") return `"${match[1]}": ${value.error}`;
    map[match[1] as string] = value;
  }
  return map;
}

/** A YAML quoted scalar: "double" (with \ escapes) or 'single' ('' is a quote), and nothing after it. */
function quoted(text: string): string | { error: string } {
  const q = text[0] as string;
  let out = "";
  for (let i = 1; i < text.length; i++) {
    const c = text[i] as string;
    if (q === '"' && c === "\\" && i + 1 < text.length) {
      const next = text[++i] as string;
      out += next === "n" ? "\n" : next === "t" ? "\t" : next;
      continue;
    }
    if (q === "'" && c === "'" && text[i + 1] === "'") {
      out += "'";
      i++;
      continue;
    }
    if (c === q) return stripComment(text.slice(i + 1)).trim() === "" ? out : { error: `text after the closing quote (${clip(text)})` };
    out += c;
  }
  return { error: `a quote that is never closed (${clip(text)})` };
}

function isBlankOrComment(line: string): boolean {
  const t = line.trim();
  return t === "" || t.startsWith("#");
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
