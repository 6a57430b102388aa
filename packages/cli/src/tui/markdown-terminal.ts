import { createRequire } from "node:module";
import type { LanguageFn } from "highlight.js";
import { codeLines, decodeEntities, lexMarkdown, openFenceAfter, setGrammarLoader, type Token, type Tokens } from "@cairn/host/markdown/markdown-core";
import { terminalText } from "../terminal-text.js";
import { charWidth } from "./text-rows.js";

/**
 * A reply's markdown as terminal lines: headings, emphasis, lists, tables, quotes, rules, links
 * with their URL, and code with syntax colour, wrapped to the terminal's width. The only escape
 * sequences in the result are this renderer's own colours (SGR): the text is cleaned with
 * terminalText before parsing and each piece again after (a character reference such as &#27;
 * decodes to a control), and raw HTML in the reply is shown as the text it is.
 */

// A grammar is loaded the first time a code block names its language (the TUI starts without them).
const require = createRequire(import.meta.url);
setGrammarLoader((name) => {
  try {
    return require(`highlight.js/lib/languages/${name}`) as LanguageFn;
  } catch {
    return undefined;
  }
});

type Colour = "red" | "green" | "yellow" | "blue" | "magenta" | "cyan";
type Style = { bold?: boolean; dim?: boolean; italic?: boolean; underline?: boolean; strike?: boolean; colour?: Colour };
type Segment = { text: string; style: Style };
type Line = Segment[];

export type TerminalMarkdownOptions = {
  /** Columns to wrap to (at least 10 are used). */
  width: number;
  /** false under NO_COLOR: bold, dim, italic and underline stay (they are not colour), colours go. */
  colour: boolean;
  /**
   * The opening line of a code block `text` continues (a streamed reply cut inside one): the
   * text is shown as that block's code, without its language label again.
   */
  fence?: string | undefined;
};

const sgr: Record<Colour, number> = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36 };

/** Code scopes to colours: the 16 standard ones only, as everywhere in the TUI (theme.ts). */
function codeStyle(kind: string | undefined): Style {
  if (!kind) return {};
  const scope = kind.split(".")[0]!;
  switch (scope) {
    case "keyword":
    case "selector-tag":
    case "literal":
      return { colour: "magenta" };
    case "built_in":
    case "type":
    case "class":
      return { colour: "cyan" };
    case "string":
    case "regexp":
    case "addition":
    case "symbol":
      return { colour: "green" };
    case "number":
      return { colour: "yellow" };
    case "title":
    case "function":
    case "section":
      return { colour: "blue" };
    case "attr":
    case "attribute":
    case "property":
    case "variable":
    case "params":
      return kind === "title.class" ? { colour: "cyan" } : {};
    case "deletion":
      return { colour: "red" };
    case "comment":
    case "quote":
    case "meta":
    case "doctag":
      return { dim: true };
    default:
      return {};
  }
}

function textWidth(text: string): number {
  let w = 0;
  for (const char of text) w += charWidth(char);
  return w;
}

function lineWidth(line: Line): number {
  return line.reduce((sum, s) => sum + textWidth(s.text), 0);
}

/** Greedy word wrap of styled pieces; a word longer than the width is split. `\n` forces a break. */
function wrap(segments: Segment[], width: number): Line[] {
  const lines: Line[] = [[]];
  let used = 0;
  const put = (text: string, style: Style) => {
    const last = lines.at(-1)!;
    const prev = last.at(-1);
    if (prev && prev.style === style) prev.text += text;
    else last.push({ text, style });
    used += textWidth(text);
  };
  const newline = () => {
    const last = lines.at(-1)!;
    // Spaces at the end of a wrapped line are not shown.
    while (last.length > 0 && /^\s*$/.test(last.at(-1)!.text)) last.pop();
    if (last.length > 0) last[last.length - 1] = { ...last.at(-1)!, text: last.at(-1)!.text.replace(/\s+$/, "") };
    lines.push([]);
    used = 0;
  };
  for (const segment of segments) {
    for (const piece of segment.text.split(/(\n| +)/)) {
      if (piece === "") continue;
      if (piece === "\n") {
        newline();
        continue;
      }
      if (piece.startsWith(" ")) {
        if (used > 0 && used + piece.length <= width) put(piece, segment.style);
        else if (used > 0) newline();
        continue;
      }
      let word = piece;
      if (used > 0 && used + textWidth(word) > width) newline();
      while (textWidth(word) > width) {
        let cut = 0;
        let w = 0;
        for (const char of word) {
          if (w + charWidth(char) > width - used) break;
          w += charWidth(char);
          cut += char.length;
        }
        if (cut === 0) cut = [...word][0]!.length;
        put(word.slice(0, cut), segment.style);
        word = word.slice(cut);
        newline();
      }
      if (word !== "") put(word, segment.style);
    }
  }
  return lines;
}

class Renderer {
  /** Set while the first code block continues one already shown: no second label. */
  continued = false;

  constructor(private readonly colour: boolean) {}

  /** Inline tokens as styled pieces (soft line breaks become spaces, hard ones `\n`). */
  inline(tokens: Token[] | undefined, style: Style = {}): Segment[] {
    const out: Segment[] = [];
    for (const token of tokens ?? []) {
      const t = token as Tokens.Generic;
      switch (t.type) {
        case "text":
          if (t.tokens && t.tokens.length > 0) out.push(...this.inline(t.tokens, style));
          else out.push({ text: decodeEntities(String(t.text)).replace(/\n/g, " "), style });
          break;
        case "escape":
          out.push({ text: decodeEntities(String(t.text)), style });
          break;
        case "strong":
          out.push(...this.inline(t.tokens, { ...style, bold: true }));
          break;
        case "em":
          out.push(...this.inline(t.tokens, { ...style, italic: true }));
          break;
        case "del":
          out.push(...this.inline(t.tokens, { ...style, strike: true }));
          break;
        case "codespan":
          out.push({ text: String(t.text).replace(/\n/g, " "), style: { ...style, colour: "yellow" } });
          break;
        case "br":
          out.push({ text: "\n", style });
          break;
        case "link": {
          const link = t as Tokens.Link;
          out.push(...this.inline(link.tokens, { ...style, underline: true, colour: "blue" }));
          const shown = link.tokens.map((x) => ("text" in x ? String(x.text) : "")).join("");
          const href = link.href.replace(/^mailto:/, "");
          if (!link.autolink && shown !== href && shown !== link.href) out.push({ text: ` (${link.href})`, style: { ...style, dim: true } });
          break;
        }
        case "image": {
          const image = t as Tokens.Image;
          out.push({ text: `[image: ${decodeEntities(image.text) || "untitled"}]`, style: { ...style, italic: true } }, { text: ` (${image.href})`, style: { ...style, dim: true } });
          break;
        }
        case "checkbox":
          out.push({ text: (t as Tokens.Checkbox).checked ? "[x] " : "[ ] ", style });
          break;
        case "html":
          // Raw HTML is text here: shown as written, never interpreted.
          out.push({ text: String(t.raw).replace(/\n/g, " "), style });
          break;
        default:
          out.push({ text: String(t.raw ?? ""), style });
      }
    }
    return out;
  }

  /** Blocks as lines, separated by one blank line (none for a tight list's items). */
  blocks(tokens: Token[], width: number, tight = false): Line[] {
    const lines: Line[] = [];
    for (const token of tokens) {
      if (token.type === "space" || token.type === "def") continue;
      const block = this.block(token, width);
      if (block.length === 0) continue;
      if (lines.length > 0 && !tight) lines.push([]);
      lines.push(...block);
    }
    return lines;
  }

  block(token: Token, width: number): Line[] {
    const t = token as Tokens.Generic;
    switch (t.type) {
      case "heading": {
        const depth = (t as Tokens.Heading).depth;
        const style: Style = depth === 1 ? { bold: true, underline: true, colour: "cyan" } : depth === 2 ? { bold: true, colour: "cyan" } : { bold: true };
        return wrap(this.inline(t.tokens, style), width);
      }
      case "paragraph":
        return wrap(this.inline(t.tokens), width);
      case "text":
        // A tight list item's text: inline tokens without a paragraph.
        return wrap(t.tokens ? this.inline(t.tokens) : [{ text: decodeEntities(String(t.text)), style: {} }], width);
      case "code":
        return this.code(t as Tokens.Code, width);
      case "blockquote":
        return this.prefixed(this.blocks(t.tokens ?? [], width - 2), [{ text: "│ ", style: { dim: true } }], [{ text: "│ ", style: { dim: true } }]);
      case "list":
        return this.list(t as Tokens.List, width, 0);
      case "hr":
        return [[{ text: "─".repeat(Math.max(3, width)), style: { dim: true } }]];
      case "table":
        return this.table(t as Tokens.Table, width);
      case "html":
        // A block of raw HTML: its lines as text.
        return String(t.raw)
          .replace(/\n+$/, "")
          .split("\n")
          .flatMap((line) => wrap([{ text: line, style: {} }], width));
      default:
        return t.raw ? wrap([{ text: String(t.raw), style: {} }], width) : [];
    }
  }

  private prefixed(lines: Line[], first: Segment[], rest: Segment[]): Line[] {
    return lines.map((line, i) => [...(i === 0 ? first : rest), ...line]);
  }

  private list(list: Tokens.List, width: number, depth: number): Line[] {
    const start = typeof list.start === "number" ? list.start : 1;
    const markers = list.items.map((_, i) => (list.ordered ? `${start + i}.` : ["•", "◦", "▪"][depth % 3]!));
    const markerWidth = Math.max(...markers.map((m) => m.length)) + 1;
    const lines: Line[] = [];
    list.items.forEach((item, i) => {
      const inner = Math.max(4, width - markerWidth);
      const parts: Line[] = [];
      let inline: Token[] = [];
      const flushInline = () => {
        if (inline.length > 0) parts.push(...wrap(this.inline(inline), inner));
        inline = [];
      };
      item.tokens.forEach((child, k) => {
        if (child.type === "checkbox") inline.push(child);
        else if (child.type === "text") inline.push(child);
        else {
          flushInline();
          if (child.type === "space") return;
          if (item.loose && parts.length > 0 && k > 0) parts.push([]);
          parts.push(...(child.type === "list" ? this.list(child as Tokens.List, inner, depth + 1) : this.block(child, inner)));
        }
      });
      flushInline();
      if (list.loose && i > 0) lines.push([]);
      const marker = markers[i]!.padEnd(markerWidth);
      lines.push(...this.prefixed(parts.length > 0 ? parts : [[]], [{ text: marker, style: { colour: "cyan" } }], [{ text: " ".repeat(markerWidth), style: {} }]));
    });
    return lines;
  }

  private code(code: Tokens.Code, width: number): Line[] {
    const inner = Math.max(4, width - 2);
    const lines: Line[] = [];
    const label = (code.lang ?? "").trim().split(/\s+/)[0];
    if (label && !this.continued) lines.push([{ text: label, style: { dim: true } }]);
    this.continued = false;
    for (const tokens of codeLines(code.text, code.lang)) {
      const segments = tokens.map((token) => ({ text: token.text.replace(/\t/g, "  "), style: codeStyle(token.kind) }));
      // Code keeps its spaces: split only where a line is longer than the width.
      const wrapped: Line[] = [[]];
      let used = 0;
      for (const segment of segments) {
        let text = segment.text;
        while (text !== "") {
          let cut = 0;
          let w = 0;
          for (const char of text) {
            if (used + w + charWidth(char) > inner) break;
            w += charWidth(char);
            cut += char.length;
          }
          if (cut === 0 && used === 0) cut = [...text][0]!.length;
          if (cut > 0) wrapped.at(-1)!.push({ text: text.slice(0, cut), style: segment.style });
          used += w;
          text = text.slice(cut);
          if (text !== "") {
            wrapped.push([]);
            used = 0;
          }
        }
      }
      lines.push(...wrapped.map((line) => [{ text: "  ", style: {} }, ...line]));
    }
    return lines;
  }

  /** A table in a box if it fits; otherwise each row as "header: value" lines. */
  private table(table: Tokens.Table, width: number): Line[] {
    const header = table.header.map((cell) => this.inline(cell.tokens, { bold: true }));
    const rows = table.rows.map((row) => row.map((cell) => this.inline(cell.tokens)));
    const columns = header.length;
    const widths = header.map((cell, c) => Math.max(3, lineWidth(cell), ...rows.map((row) => lineWidth(row[c] ?? []))));
    const total = widths.reduce((a, b) => a + b, 0) + 3 * columns + 1;
    const plainText = (cell: Segment[]) => cell.some((s) => s.text.includes("\n"));
    if (total <= width && !header.some(plainText) && !rows.some((row) => row.some(plainText))) {
      const border = (l: string, m: string, r: string): Line => [{ text: l + widths.map((w) => "─".repeat(w + 2)).join(m) + r, style: { dim: true } }];
      const row = (cells: Segment[][]): Line => {
        const line: Line = [{ text: "│", style: { dim: true } }];
        cells.forEach((cell, c) => {
          const pad = widths[c]! - lineWidth(cell);
          const align = table.align[c];
          const left = align === "right" ? pad : align === "center" ? Math.floor(pad / 2) : 0;
          line.push({ text: " ".repeat(left + 1), style: {} }, ...cell, { text: " ".repeat(pad - left + 1), style: {} }, { text: "│", style: { dim: true } });
        });
        return line;
      };
      return [border("┌", "┬", "┐"), row(header), border("├", "┼", "┤"), ...rows.map((r) => row(header.map((_, c) => r[c] ?? []))), border("└", "┴", "┘")];
    }
    // Too wide: one record per row, each cell on its own line(s) under its header's name.
    const lines: Line[] = [];
    rows.forEach((row, r) => {
      if (r > 0) lines.push([{ text: "─".repeat(Math.min(width, 20)), style: { dim: true } }]);
      header.forEach((name, c) => lines.push(...wrap([...name, { text: ": ", style: { bold: true } }, ...(row[c] ?? [])], width)));
    });
    return lines;
  }

  serialize(line: Line): string {
    let out = "";
    for (const segment of line) {
      // Cleaned again here, piece by piece, around only this renderer's own colours: the parser
      // turns character references (&#27; &#x9b; &#7;) into the very controls the source was cleaned of.
      const text = terminalText(segment.text);
      const style = segment.style;
      if (text === "") continue;
      const codes: number[] = [];
      if (style.bold) codes.push(1);
      if (style.dim) codes.push(2);
      if (style.italic) codes.push(3);
      if (style.underline) codes.push(4);
      if (style.strike) codes.push(9);
      if (style.colour && this.colour) codes.push(sgr[style.colour]);
      out += codes.length > 0 ? `\u001b[${codes.join(";")}m${text}\u001b[0m` : text;
    }
    return out;
  }
}

/** `text` as markdown, rendered to terminal lines no wider than `width` columns. */
export function markdownLines(text: string, options: TerminalMarkdownOptions): string[] {
  const width = Math.max(10, options.width);
  const renderer = new Renderer(options.colour);
  renderer.continued = options.fence !== undefined;
  const source = options.fence !== undefined ? `${options.fence}\n${text}` : text;
  const lines = renderer.blocks(lexMarkdown(terminalText(source)), width);
  return lines.map((line) => renderer.serialize(line));
}

/** The same, as one string (what an ink <Text> prints). */
export function renderMarkdown(text: string, options: TerminalMarkdownOptions): string {
  return markdownLines(text, options).join("\n");
}

/**
 * One part of a streamed reply as the history prints it: a part cut after a blank line (between
 * two blocks) keeps that blank line, so the next part starts a block below as in the whole reply.
 */
export function replyPartLines(text: string, fence: string | undefined, options: Omit<TerminalMarkdownOptions, "fence">): string[] {
  const lines = markdownLines(text, { ...options, fence });
  if (/\n[ \t]*$/.test(text) && openFenceAfter(text, fence) === undefined) lines.push("");
  return lines;
}
