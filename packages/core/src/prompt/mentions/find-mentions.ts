/**
 * Finding @-mentions in a person's message:
 *
 *   @/src/app.ts   @/src/   @"docs/my notes.md"   @https://example.com/page
 *   @git-changes   @a1b2c3d (a commit, 7-40 hex digits)   @terminal   @problems
 *
 * An @ counts only at the start of the text or after a space or an opening bracket or quote,
 * so e-mail addresses (a@b.com) and user@host are not mentions, and `\@` escapes one. Nothing
 * inside `inline code` or a fenced code block is a mention.
 */

export type Mention =
  | { kind: "path"; raw: string; /** workspace-relative, no leading slash ("" is the root) */ path: string; folder: boolean }
  | { kind: "url"; raw: string; url: string }
  | { kind: "git-changes"; raw: string }
  | { kind: "commit"; raw: string; hash: string }
  | { kind: "terminal"; raw: string }
  | { kind: "problems"; raw: string };

const MENTION =
  /(?<![\w\\@/.:-])@(?:"([^"\n]+)"|(https?:\/\/[^\s<>"'`]+)|(\/[^\s`]*)|(git-changes|terminal|problems)(?![\w-])|([0-9a-fA-F]{7,40})(?![\w-]))/g;

/** The mentions in the text, in order of appearance, each target once. */
export function findMentions(text: string): Mention[] {
  const code = codeRanges(text);
  const found = new Map<string, Mention>();
  let next = 0; // matches come in text order, so one pass over the sorted code ranges suffices
  for (const match of text.matchAll(MENTION)) {
    const at = match.index;
    while (next < code.length && (code[next] as [number, number])[1] <= at) next++;
    const range = code[next];
    if (range && at >= range[0]) continue;
    const mention = toMention(match);
    if (!mention) continue;
    const key = mentionKey(mention);
    if (!found.has(key)) found.set(key, mention);
  }
  return [...found.values()];
}

function toMention(match: RegExpMatchArray): Mention | undefined {
  const [, quoted, url, slashPath, keyword, hash] = match;
  if (quoted !== undefined) {
    const target = quoted.trim();
    if (target === "") return undefined;
    return { kind: "path", raw: `@"${quoted}"`, path: stripSlashes(target), folder: target.endsWith("/") };
  }
  if (url !== undefined) {
    const clean = trimTrailing(url);
    return { kind: "url", raw: `@${clean}`, url: clean };
  }
  if (slashPath !== undefined) {
    const clean = trimTrailing(slashPath);
    return { kind: "path", raw: `@${clean}`, path: stripSlashes(clean), folder: clean.endsWith("/") };
  }
  if (keyword === "git-changes" || keyword === "terminal" || keyword === "problems") return { kind: keyword, raw: `@${keyword}` };
  if (hash !== undefined) return { kind: "commit", raw: `@${hash}`, hash: hash.toLowerCase() };
  return undefined;
}

function mentionKey(mention: Mention): string {
  switch (mention.kind) {
    case "path":
      return `path:${mention.path}${mention.folder ? "/" : ""}`;
    case "url":
      return `url:${mention.url}`;
    case "commit":
      return `commit:${mention.hash}`;
    default:
      return mention.kind;
  }
}

function stripSlashes(target: string): string {
  return target.replace(/^\/+/, "").replace(/\/+$/, "");
}

/** Sentence punctuation after a path or URL is not part of it; nor is a closing bracket without its opener. */
function trimTrailing(target: string): string {
  let out = target;
  for (;;) {
    const last = out[out.length - 1];
    if (last === undefined) return out;
    if (".,;:!?'\"".includes(last) && out.length > 1) {
      out = out.slice(0, -1);
      continue;
    }
    const opener = last === ")" ? "(" : last === "]" ? "[" : last === "}" ? "{" : undefined;
    if (opener && count(out, opener) < count(out, last)) {
      out = out.slice(0, -1);
      continue;
    }
    return out;
  }
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}

/** [start, end) ranges of fenced code blocks and inline code spans. */
export function codeRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const fence = /^[ \t]{0,3}(`{3,}|~{3,})[^\n]*$/gm;
  let open: { marker: string; start: number } | undefined;
  for (const match of text.matchAll(fence)) {
    const marker = match[1] as string;
    if (!open) {
      open = { marker, start: match.index };
      continue;
    }
    if (marker[0] === open.marker[0] && marker.length >= open.marker.length && match[0].trim() === marker) {
      ranges.push([open.start, match.index + match[0].length]);
      open = undefined;
    }
  }
  if (open) ranges.push([open.start, text.length]); // an unclosed fence runs to the end, as in Markdown
  const fences = [...ranges];
  let at = 0;
  const inFence = (i: number) => {
    while (at < fences.length && (fences[at] as [number, number])[1] <= i) at++;
    const range = fences[at];
    return range !== undefined && i >= range[0];
  };

  const ticks = /`+/g;
  let pending: { length: number; start: number } | undefined;
  for (const match of text.matchAll(ticks)) {
    if (inFence(match.index)) continue;
    const length = match[0].length;
    if (!pending) {
      pending = { length, start: match.index };
    } else if (pending.length === length) {
      ranges.push([pending.start, match.index + length]);
      pending = undefined;
    }
  }
  // An unmatched run of backticks is literal text, as in Markdown. Ranges never overlap.
  return ranges.sort((a, b) => a[0] - b[0]);
}
