export type Eol = "\n" | "\r\n";
export type Terminator = Eol | "";

const BOM = "\uFEFF";

/**
 * A text file split into lines, with what it takes to rebuild it byte for byte: the byte-order mark,
 * each line's own terminator (mixed files stay mixed) and whether the last line ends with one.
 * A lone "\r" is not a line break; it stays part of its line.
 */
export type SourceText = {
  /** "\uFEFF" when the file starts with a UTF-8 byte-order mark, else "". */
  bom: string;
  /** The content after the byte-order mark; every offset below is into this string. */
  text: string;
  /** Line contents without terminators. An empty file has no lines; a final newline adds none. */
  lines: string[];
  /** Offset where each line starts; `starts[lines.length]` is `text.length`. */
  starts: number[];
  terminators: Terminator[];
  /** The terminator most lines use ("\n" on a tie or with no line breaks): new lines get it. */
  eol: Eol;
};

export function splitSource(original: string): SourceText {
  const bom = original.startsWith(BOM) ? BOM : "";
  const text = bom === "" ? original : original.slice(1);
  const lines: string[] = [];
  const starts: number[] = [];
  const terminators: Terminator[] = [];
  let crlf = 0;
  let lf = 0;
  let start = 0;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
    const isCrlf = nl > start && text.charCodeAt(nl - 1) === 13;
    starts.push(start);
    lines.push(text.slice(start, isCrlf ? nl - 1 : nl));
    terminators.push(isCrlf ? "\r\n" : "\n");
    if (isCrlf) crlf += 1;
    else lf += 1;
    start = nl + 1;
  }
  if (start < text.length) {
    starts.push(start);
    lines.push(text.slice(start));
    terminators.push("");
  }
  starts.push(text.length);
  return { bom, text, lines, starts, terminators, eol: crlf > lf ? "\r\n" : "\n" };
}

/** Offset just past a line's content, before its terminator. */
export function contentEnd(source: SourceText, line: number): number {
  return (source.starts[line] ?? 0) + (source.lines[line]?.length ?? 0);
}

export function endsWithNewline(source: SourceText): boolean {
  const last = source.terminators[source.terminators.length - 1];
  return last !== undefined && last !== "";
}

/**
 * The file as if every line ended with "\n", for matching text the model wrote with "\n" against a
 * CRLF (or mixed) file, and the way back to offsets in `source.text`.
 */
export type LfView = {
  text: string;
  /** Maps an offset in the view to the same position in `source.text`. */
  toSource(offset: number): number;
  /** The 0-based line an offset of the view falls on. */
  lineAt(offset: number): number;
};

export function lfView(source: SourceText): LfView {
  const lfStarts: number[] = [];
  let at = 0;
  for (let i = 0; i < source.lines.length; i++) {
    lfStarts.push(at);
    at += (source.lines[i] ?? "").length + ((source.terminators[i] ?? "") === "" ? 0 : 1);
  }
  const hasCr = source.terminators.includes("\r\n");
  const text = hasCr ? source.lines.map((line, i) => line + (source.terminators[i] === "" ? "" : "\n")).join("") : source.text;
  const lineAt = (offset: number): number => {
    let low = 0;
    let high = lfStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((lfStarts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  const toSource = (offset: number): number => {
    if (!hasCr) return offset;
    if (offset >= text.length) return source.text.length;
    const line = lineAt(offset);
    return (source.starts[line] ?? 0) + offset - (lfStarts[line] ?? 0);
  };
  return { text, toSource, lineAt };
}

/** Writes "\n"-separated text with the given terminator. */
export function withEol(text: string, eol: Eol): string {
  return eol === "\n" ? text : text.replaceAll("\n", eol);
}
