import type { EventSink } from "./event-sink.js";
import type { CompiledTool, TagSet } from "./tool-tags.js";

const NL = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const LT = 60;
const TICK = 96;
const TILDE = 126;

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === CR || c === NL;
}

type Fence = { char: string; len: number };

type Mode =
  /** Ordinary prose. */
  | "text"
  /** A `<` and what follows, while it could still be a known tool's opening tag. */
  | "tag"
  /** A line that starts with a run of backticks or tildes, held until its end says whether it is a fence. */
  | "fence-line"
  /** After a fence's opening line: whitespace, held until the first non-whitespace decides code or call. */
  | "fence-open"
  /** After a fence's opening line: a `<` that could start a known tool's opening tag. */
  | "fence-open-tag"
  /** Inside a fenced code block: everything is prose until the closing fence. */
  | "code";

/** A fenced code block's closing-line recognition, one character at a time. */
type CloseLine = "start" | "run" | "trail" | "no";

/** `fenced`: the tool block opened as the content of a fenced code block (```xml). */
export type ScanResult = { next: number; opened: CompiledTool | null; fenced: boolean };

/**
 * The prose outside tool blocks, read as markdown enough to tell a call from a quoted tag: tags in
 * inline code spans and fenced code blocks are prose, except a fence whose content starts with a
 * known tool's opening tag (weak models wrap real calls in ```xml fences): that fence is framing and
 * neither its opening nor its closing line is sent as text.
 *
 * An inline code span ends at the matching backtick run or at the end of its line (a stray backtick
 * must not turn the rest of a message into code).
 */
export class ProseScanner {
  private mode: Mode = "text";
  private lineStart = true;
  /** Length of the open inline code span's backtick run; 0 outside one. */
  private inlineTicks = 0;
  /** Backticks seen in a row, not yet decided (open or close a span). */
  private tickRun = 0;
  private tag = "";
  /** Prose held back while a fence line is undecided. */
  private held = "";
  private fenceChar = "";
  private fenceRun = 0;
  private fenceInfo = false;
  private fenceInfoBlank = true;
  /** The fence just opened, before its content decides code or call. */
  private opening: Fence | null = null;
  /** The code block we are in (mode "code"). */
  private code: Fence | null = null;
  private closeLine: CloseLine = "start";
  private closeRun = 0;
  /** A fence that wrapped a call: its closing line is framing. */
  private toolFence: Fence | null = null;

  constructor(
    private readonly tools: TagSet<CompiledTool>,
    private readonly sink: EventSink,
  ) {}

  /** Reads `s` from `i`; stops right after a known tool's opening tag (`opened`) or at the end of `s`. */
  scan(s: string, i: number): ScanResult {
    while (i < s.length) {
      switch (this.mode) {
        case "text":
          i = this.text(s, i);
          break;
        case "tag":
        case "fence-open-tag": {
          const candidate = this.tag + s[i];
          if (!this.tools.isPrefix(candidate)) {
            this.rejectTag();
            break;
          }
          this.tag = candidate;
          i++;
          const tool = this.tools.get(candidate);
          if (tool) {
            const fenced = this.mode === "fence-open-tag";
            this.openTool();
            return { next: i, opened: tool, fenced };
          }
          break;
        }
        case "fence-line":
          i = this.fenceLine(s, i);
          break;
        case "fence-open": {
          const c = s.charCodeAt(i);
          if (isBlank(c)) {
            this.held += s[i];
            i++;
          } else if (c === LT) {
            this.mode = "fence-open-tag";
            this.tag = "<";
            i++;
          } else {
            this.enterCode("start");
          }
          break;
        }
        case "code":
          i = this.codeBlock(s, i);
          break;
      }
    }
    return { next: i, opened: null, fenced: false };
  }

  /** The tool block that scan() opened has closed; prose continues after its closing tag. */
  resume(): void {
    this.mode = "text";
    this.lineStart = false;
    this.inlineTicks = 0;
    this.tickRun = 0;
  }

  /** The message ended: send what was held back. */
  end(): void {
    switch (this.mode) {
      case "tag":
        this.sink.text(this.tag);
        break;
      case "fence-line":
        if (!this.closesToolFence()) this.sink.text(this.held);
        break;
      case "fence-open":
        this.sink.text(this.held);
        break;
      case "fence-open-tag":
        this.sink.text(this.held + this.tag);
        break;
    }
    this.held = "";
    this.tag = "";
    this.mode = "text";
  }

  private text(s: string, i: number): number {
    const c = s.charCodeAt(i);
    if (this.tickRun > 0 && c !== TICK) this.endTickRun();
    if (this.lineStart) {
      if (c === SPACE || c === TAB || c === CR) {
        this.sink.text(s[i] ?? "");
        return i + 1;
      }
      if (c === TICK || c === TILDE) {
        this.mode = "fence-line";
        this.fenceChar = s[i] ?? "";
        this.fenceRun = 0;
        this.fenceInfo = false;
        this.fenceInfoBlank = true;
        this.held = "";
        return i;
      }
    }
    if (c === NL) {
      this.sink.text("\n");
      this.lineStart = true;
      this.inlineTicks = 0;
      return i + 1;
    }
    this.lineStart = false;
    if (c === TICK) {
      this.tickRun++;
      this.sink.text("`");
      return i + 1;
    }
    if (c === LT && this.inlineTicks === 0) {
      this.mode = "tag";
      this.tag = "<";
      return i + 1;
    }
    let j = i + 1;
    while (j < s.length) {
      const d = s.charCodeAt(j);
      if (d === NL || d === TICK || d === LT) break;
      j++;
    }
    this.sink.text(s.slice(i, j));
    return j;
  }

  private endTickRun(): void {
    if (this.inlineTicks === 0) this.inlineTicks = this.tickRun;
    else if (this.tickRun === this.inlineTicks) this.inlineTicks = 0;
    this.tickRun = 0;
  }

  /** The `<...` candidate is not a tool tag: it is prose (or code, after a fence's opening line). */
  private rejectTag(): void {
    if (this.mode === "tag") {
      this.sink.text(this.tag);
      this.tag = "";
      this.mode = "text";
      return;
    }
    this.held += this.tag;
    this.tag = "";
    this.enterCode("no");
  }

  private openTool(): void {
    if (this.mode === "fence-open-tag") {
      this.toolFence = this.opening;
      this.held = "";
    }
    this.opening = null;
    this.tag = "";
    this.mode = "text";
  }

  private fenceLine(s: string, i: number): number {
    if (!this.fenceInfo) {
      if (s[i] === this.fenceChar) {
        this.held += this.fenceChar;
        this.fenceRun++;
        return i + 1;
      }
      if (this.fenceRun < 3) {
        this.sink.text(this.held);
        this.held = "";
        this.mode = "text";
        this.lineStart = false;
        if (this.fenceChar === "`") this.tickRun = this.fenceRun;
        return i;
      }
      this.fenceInfo = true;
    }
    const nl = s.indexOf("\n", i);
    const end = nl < 0 ? s.length : nl;
    const info = s.slice(i, end);
    this.held += info;
    if (this.fenceInfoBlank && info.trim() !== "") this.fenceInfoBlank = false;
    if (nl < 0) return end;
    this.held += "\n";
    if (this.closesToolFence()) {
      this.toolFence = null;
      this.held = "";
      this.mode = "text";
    } else {
      this.toolFence = null;
      this.opening = { char: this.fenceChar, len: this.fenceRun };
      this.mode = "fence-open";
    }
    this.lineStart = true;
    return nl + 1;
  }

  private closesToolFence(): boolean {
    const fence = this.toolFence;
    return (
      fence !== null && this.fenceInfoBlank && this.fenceChar === fence.char && this.fenceRun >= fence.len
    );
  }

  private enterCode(closeLine: CloseLine): void {
    this.sink.text(this.held);
    this.held = "";
    this.code = this.opening;
    this.opening = null;
    this.closeLine = closeLine;
    this.closeRun = 0;
    this.mode = "code";
  }

  private codeBlock(s: string, i: number): number {
    if (this.closeLine === "no") {
      const nl = s.indexOf("\n", i);
      if (nl < 0) {
        this.sink.text(s.slice(i));
        return s.length;
      }
      this.sink.text(s.slice(i, nl + 1));
      this.closeLine = "start";
      this.closeRun = 0;
      return nl + 1;
    }
    const c = s.charCodeAt(i);
    this.sink.text(s[i] ?? "");
    const fence = this.code;
    if (fence === null) throw new Error("XmlStreamParser: inside a code block without its fence (a parser bug).");
    if (c === NL) {
      if ((this.closeLine === "run" || this.closeLine === "trail") && this.closeRun >= fence.len) {
        this.code = null;
        this.mode = "text";
        this.lineStart = true;
      } else {
        this.closeLine = "start";
        this.closeRun = 0;
      }
      return i + 1;
    }
    const blank = c === SPACE || c === TAB || c === CR;
    const fenceChar = s[i] === fence.char;
    if (this.closeLine === "start") this.closeLine = blank ? "start" : fenceChar ? "run" : "no";
    else if (this.closeLine === "run") this.closeLine = fenceChar ? "run" : blank ? "trail" : "no";
    else if (!blank) this.closeLine = "no";
    if (this.closeLine === "run") this.closeRun++;
    return i + 1;
  }
}
