/**
 * A bounded view of a stream of text: its first lines (head) and its last lines (a ring-buffer
 * tail), with a count of what fell out between them. Memory stays within the limits however much
 * text passes through.
 */

export type WindowLimits = {
  /** The head keeps the first `headLines` lines, and at most `headChars` characters of them. */
  headLines: number;
  headChars: number;
  /** The tail keeps the last `tailLines` lines, and at most `tailChars` characters of them. */
  tailLines: number;
  tailChars: number;
};

/** Head and tail of what passed through, and how much was left out between them. */
export type WindowParts = {
  head: string;
  tail: string;
  /** Newlines in the text left out; 0 with `droppedChars` > 0 means part of one long line. */
  droppedLines: number;
  droppedChars: number;
  totalChars: number;
};

export class OutputWindow {
  private head = "";
  private headLineCount = 0;
  private headFull = false;
  /** Tail lines, each ending in "\n" except possibly the last; `first` is the ring's start. */
  private lines: string[] = [];
  private first = 0;
  private tailChars = 0;
  private droppedLines = 0;
  private droppedChars = 0;
  private totalChars = 0;

  /**
   * @param beforeFirstDrop called once, just before text is first left out, while `text()` still
   *   returns everything that passed through (so it can be saved in full elsewhere).
   */
  constructor(
    private readonly limits: WindowLimits,
    private readonly beforeFirstDrop?: () => void,
  ) {}

  get size(): { headChars: number; tailChars: number; tailLines: number } {
    return { headChars: this.head.length, tailChars: this.tailChars, tailLines: this.lines.length - this.first };
  }

  get total(): number {
    return this.totalChars;
  }

  get isEmpty(): boolean {
    return this.totalChars === 0;
  }

  get hasDropped(): boolean {
    return this.droppedChars > 0;
  }

  append(text: string): void {
    if (text === "") return;
    this.totalChars += text.length;
    const rest = this.headFull ? text : this.fillHead(text);
    if (rest === "") return;
    this.appendTail(rest);
    this.trimTail();
  }

  parts(): WindowParts {
    return {
      head: this.head,
      tail: this.lines.slice(this.first).join(""),
      droppedLines: this.droppedLines,
      droppedChars: this.droppedChars,
      totalChars: this.totalChars,
    };
  }

  /** Everything kept, head then tail (the whole text while nothing has been dropped). */
  text(): string {
    return this.head + this.lines.slice(this.first).join("");
  }

  /** The last line of the text, and whether it is unfinished (no newline after it yet). */
  lastLine(): { line: string; partial: boolean } {
    let last = this.lines.length > this.first ? this.lines[this.lines.length - 1] : undefined;
    if (last === undefined) {
      const cut = this.head.lastIndexOf("\n", this.head.length - 2);
      last = this.head.slice(cut + 1);
    } else if (this.lines.length - this.first === 1 && this.droppedChars === 0 && !this.head.endsWith("\n")) {
      // The line began in the head.
      last = this.head.slice(this.head.lastIndexOf("\n") + 1) + last;
    }
    const partial = !last.endsWith("\n");
    return { line: partial ? last : last.slice(0, -1), partial };
  }

  /** Takes the head's share of `text` and returns the rest. */
  private fillHead(text: string): string {
    const { headLines, headChars } = this.limits;
    const room = Math.max(0, headChars - this.head.length);
    let take = Math.min(text.length, room);
    let lines = this.headLineCount;
    let from = 0;
    while (lines < headLines) {
      const newline = text.indexOf("\n", from);
      if (newline === -1 || newline >= take) break;
      lines += 1;
      from = newline + 1;
      if (lines === headLines) take = from;
    }
    this.head += text.slice(0, take);
    this.headLineCount = lines;
    const rest = text.slice(take);
    if (rest !== "" || lines >= headLines || this.head.length >= headChars) this.headFull = true;
    return rest;
  }

  private appendTail(text: string): void {
    if (this.droppedChars > 0) text = this.skipToLastLines(text);
    let from = 0;
    const lastIndex = this.lines.length - 1;
    const last = lastIndex >= this.first ? this.lines[lastIndex] : undefined;
    if (last !== undefined && !last.endsWith("\n")) {
      const newline = text.indexOf("\n");
      const end = newline === -1 ? text.length : newline + 1;
      this.lines[lastIndex] = last + text.slice(0, end);
      from = end;
    }
    while (from < text.length) {
      const newline = text.indexOf("\n", from);
      const end = newline === -1 ? text.length : newline + 1;
      this.lines.push(text.slice(from, end));
      from = end;
    }
    this.tailChars += text.length;
  }

  /**
   * When `text` alone holds more lines than the tail keeps, everything before its last `tailLines`
   * lines (and the whole current tail) would be dropped line by line: drop it at once instead.
   * Only after the first drop, so `beforeFirstDrop` still sees the whole text.
   */
  private skipToLastLines(text: string): string {
    const keep = this.limits.tailLines;
    let start = text.length;
    let found = 0;
    let search = text.endsWith("\n") ? text.length - 2 : text.length - 1;
    while (found < keep && search >= 0) {
      const newline = text.lastIndexOf("\n", search);
      if (newline === -1) break;
      found += 1;
      start = newline + 1;
      search = newline - 1;
    }
    if (found < keep || start === 0) return text;
    const prefix = text.slice(0, start);
    const kept = this.lines.length - this.first;
    const last = kept > 0 ? this.lines[this.lines.length - 1] : undefined;
    // A partial last line continues into the prefix; its newline is counted there.
    const completeLines = last !== undefined && !last.endsWith("\n") ? kept - 1 : kept;
    this.droppedChars += this.tailChars + prefix.length;
    this.droppedLines += completeLines + countNewlines(prefix);
    this.lines = [];
    this.first = 0;
    this.tailChars = 0;
    return text.slice(start);
  }

  private trimTail(): void {
    const { tailLines, tailChars } = this.limits;
    while (this.lines.length - this.first > tailLines || this.tailChars > tailChars) {
      if (this.droppedChars === 0) this.beforeFirstDrop?.();
      const count = this.lines.length - this.first;
      const line = this.lines[this.first] ?? "";
      if (count > 1 || tailChars <= 0) {
        this.first += 1;
        this.tailChars -= line.length;
        this.droppedChars += line.length;
        if (line.endsWith("\n")) this.droppedLines += 1;
        continue;
      }
      // One line longer than the whole tail: keep its end.
      const cut = line.length - tailChars;
      this.lines[this.first] = line.slice(cut);
      this.tailChars -= cut;
      this.droppedChars += cut;
    }
    if (this.first > 1024 && this.first * 2 > this.lines.length) {
      this.lines = this.lines.slice(this.first);
      this.first = 0;
    }
  }
}

function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count += 1;
  return count;
}
