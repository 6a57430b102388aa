/// <reference path="./hljs-core.d.ts" />
/**
 * What the terminal and the web page share to show a reply as markdown: one parser (marked's
 * lexer, GitHub flavour) and one code highlighter (highlight.js, a set of common languages).
 * Neither host ever hands the model's text to something that interprets HTML: each walks the
 * tokens itself, and raw HTML in a reply is a token whose text is shown as text.
 * Pure and browser-safe: the web client imports this file as it is.
 */
import hljs from "highlight.js/lib/core";
import type { LanguageFn } from "highlight.js";
import { Lexer, type Token, type Tokens } from "marked";

export type { Token, Tokens };

/** The languages code is coloured in (highlight.js's names); a fence naming another is left plain. */
export const grammarNames = ["bash", "c", "cpp", "csharp", "css", "diff", "dockerfile", "go", "ini", "java", "javascript", "json", "kotlin", "makefile", "markdown", "php", "python", "ruby", "rust", "shell", "sql", "swift", "typescript", "xml", "yaml"] as const;
export type GrammarName = (typeof grammarNames)[number];

/** Fence names people write for them, before a grammar (which knows its own aliases) is loaded. */
const aliases: Record<string, GrammarName> = {
  ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript", js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript",
  py: "python", python3: "python", sh: "bash", zsh: "bash", console: "shell", yml: "yaml", html: "xml", svg: "xml", rs: "rust", golang: "go",
  kt: "kotlin", cs: "csharp", "c++": "cpp", hpp: "cpp", cc: "cpp", h: "c", rb: "ruby", md: "markdown", toml: "ini", docker: "dockerfile",
  patch: "diff", jsonc: "json", json5: "json", mk: "makefile",
};

let loadGrammar: ((name: GrammarName) => LanguageFn | undefined) | undefined;

/**
 * How a grammar is found the first time a fence names it: the page imports them all up front
 * (registerGrammars), the terminal loads each on first use, so a session with no code in it does
 * not pay for them. Only the names above are ever asked for: a fence's name is the model's text.
 */
export function setGrammarLoader(load: (name: GrammarName) => LanguageFn | undefined): void {
  loadGrammar = load;
}

export function registerGrammars(grammars: Partial<Record<GrammarName, LanguageFn>>): void {
  for (const [name, grammar] of Object.entries(grammars)) if (grammar && !hljs.getLanguage(name)) hljs.registerLanguage(name, grammar);
}

/** The registered language for a fence's name, loading its grammar if need be. */
function language(lang: string | undefined): string | undefined {
  const name = (lang ?? "").trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  if (name === "") return undefined;
  if (hljs.getLanguage(name)) return name;
  // Own keys only: a fence named "constructor" must not find Object's.
  const grammar = (grammarNames as readonly string[]).includes(name) ? (name as GrammarName) : Object.hasOwn(aliases, name) ? aliases[name] : undefined;
  if (!grammar || !loadGrammar) return undefined;
  if (!hljs.getLanguage(grammar)) {
    const fn = loadGrammar(grammar);
    if (!fn) return undefined;
    hljs.registerLanguage(grammar, fn);
  }
  return grammar;
}

/**
 * A reply's blocks. GitHub flavour: tables, task lists, strikethrough, bare URLs as links; a line
 * break the model wrote stays a line break (as in a GitHub comment), so text written as lines
 * is shown as lines.
 */
export function lexMarkdown(text: string): Token[] {
  return Lexer.lex(text, { gfm: true, breaks: true });
}

/** A piece of highlighted code: `kind` is highlight.js's scope (keyword, string, title.function…). */
export type CodeToken = { text: string; kind?: string };

/**
 * `code` split into lines of coloured pieces, for the fence's language (or its alias: ts, py,
 * sh, html…). A language highlight.js does not know is left plain rather than guessed at.
 */
export function codeLines(code: string, lang: string | undefined): CodeToken[][] {
  const name = language(lang);
  const tokens = name ? fromHighlightHtml(hljs.highlight(code, { language: name, ignoreIllegals: true }).value) : [{ text: code }];
  const lines: CodeToken[][] = [[]];
  for (const token of tokens) {
    token.text.split("\n").forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part !== "") lines.at(-1)!.push(token.kind ? { text: part, kind: token.kind } : { text: part });
    });
  }
  return lines;
}

/**
 * highlight.js's output back into pieces. It is only ever `<span class="hljs-…">`, `</span>` and
 * the source text with & < > " ' escaped, so this reads it exactly; the innermost scope wins.
 */
function fromHighlightHtml(html: string): CodeToken[] {
  const tokens: CodeToken[] = [];
  const scopes: Array<string | undefined> = [];
  for (const m of html.matchAll(/<span class="([^"]*)">|<\/span>|[^<]+/g)) {
    if (m[0] === "</span>") scopes.pop();
    else if (m[1] !== undefined) scopes.push(m[1].split(" ")[0]!.replace(/^hljs-/, "").replace(/_$/, "") || scopes.at(-1));
    else {
      const kind = scopes.at(-1);
      const text = decodeEntities(m[0]);
      tokens.push(kind ? { text, kind } : { text });
    }
  }
  return tokens;
}

const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", copy: "©", reg: "®", trade: "™", hellip: "…", mdash: "—", ndash: "–", larr: "←", rarr: "→", times: "×", middot: "·", deg: "°" };

/**
 * Character references in a text token (the lexer leaves `&amp;` and the like for an HTML
 * renderer to pass on; these hosts show text, so they resolve them). Unknown names stay as typed.
 */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref[0] !== "#") return named[ref.toLowerCase()] ?? whole;
    const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : "\ufffd";
  });
}

/**
 * A link's target if it is one a person may follow from a reply: http(s) and mailto only. Not
 * `javascript:`, `data:`, `file:` or a relative path (which would resolve against the page's
 * own server and its token-guarded API).
 */
export function safeHref(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href.trim());
  } catch {
    return undefined;
  }
  return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:" ? url.href : undefined;
}

/** A fence opener (``` or ~~~, up to any indent), its marker and its info string. */
const fenceOpen = /^(\s*)(`{3,}|~{3,})(.*)$/;

/** Whether `line` opens a fence (a backtick fence's info string holds no backtick). */
function opens(line: string): boolean {
  const m = fenceOpen.exec(line);
  return m !== null && (m[2]![0] === "~" || !m[3]!.includes("`"));
}

/** Whether `line` closes the fence opened by `opener` (same character, at least as long, nothing after). */
function closes(line: string, opener: string): boolean {
  const marker = fenceOpen.exec(opener)![2]!;
  const m = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
  return m !== null && m[1]![0] === marker[0] && m[1]!.length >= marker.length;
}

/**
 * The fence still open at the end of `text` (its opening line), if any, given the one open at its
 * start. A streamed reply's code block that is not closed yet is shown as code, not as prose.
 */
export function openFenceAfter(text: string, openAtStart?: string): string | undefined {
  let open = openAtStart;
  for (const line of text.split("\n")) {
    if (open !== undefined) {
      if (closes(line, open)) open = undefined;
    } else if (opens(line)) open = line;
  }
  return open;
}

/**
 * Where a streamed reply may be cut so that each side still reads as the same markdown: before a
 * line `i` where a block starts (after a blank line, at a heading or a top-level list item),
 * between two lines of a plain paragraph or of a quote (a line break either way), or anywhere
 * inside a code block (the rest then carries the fence's opening line). Never inside a table or
 * a list item's continuation, whose lines only make sense together. Returns the cut points
 * (indexes of the first line of the rest) and the fence open at each.
 */
export function safeCuts(lines: string[], openAtStart?: string): Map<number, string | undefined> {
  const cuts = new Map<number, string | undefined>();
  let open = openAtStart;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (open !== undefined) {
      if (closes(line, open)) {
        open = undefined;
        continue;
      }
      // Not right after the opening line: the part before would be an empty block.
      if (i > 0 && lines[i - 1] !== open) cuts.set(i, open);
      continue;
    }
    if (i > 0 && startsBlock(lines[i - 1]!, line)) cuts.set(i, undefined);
    if (opens(line)) open = line;
  }
  return cuts;
}

const listItem = /^(?:[-*+]|\d{1,9}[.)])\s/;

function startsBlock(prev: string, line: string): boolean {
  if (line === "" || /^\s/.test(line) || /^ {0,3}(?:=+|-+)\s*$/.test(line)) return false;
  if (prev === "") return true;
  if (/^#{1,6}\s/.test(line) || listItem.test(line)) return true;
  if (/^\s/.test(prev) || listItem.test(prev) || prev.includes("|") || line.includes("|")) return false;
  return prev.startsWith(">") === line.startsWith(">");
}
