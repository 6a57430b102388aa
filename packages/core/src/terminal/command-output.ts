import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { collapseCarriageReturns } from "./ansi.js";
import { OutputWindow, type WindowLimits, type WindowParts } from "./output-window.js";
import { thousands } from "../text/thousands.js";

export type OutputLimits = {
  /** What one command's result shows the model. */
  result: WindowLimits;
  /** What one update of a background process shows (output since the model last saw it). */
  update: WindowLimits;
  /** The log file stops growing here (a dev server left running all day). */
  maxLogBytes: number;
};

export const defaultOutputLimits: OutputLimits = {
  result: { headLines: 100, headChars: 10_000, tailLines: 400, tailChars: 30_000 },
  update: { headLines: 20, headChars: 2_000, tailLines: 80, tailChars: 8_000 },
  maxLogBytes: 64 * 1024 * 1024,
};

/**
 * The output of one command: a bounded view of all of it, a bounded view of what the model has not
 * seen yet, and a log file with everything. The log is only written once a view has to leave
 * something out; until then the views hold the whole output and a small command leaves no file.
 */
export class CommandOutput {
  private readonly all: OutputWindow;
  /** What the model has not seen; undefined until it first sees something (then all of it is new). */
  private unread: OutputWindow | undefined;
  private readonly log: SpillFile;

  constructor(
    logPath: string,
    private readonly limits: OutputLimits = defaultOutputLimits,
  ) {
    this.log = new SpillFile(logPath, limits.maxLogBytes);
    this.all = new OutputWindow(limits.result, () => this.spill());
  }

  write(text: string): void {
    if (text === "") return;
    const spilling = this.log.started;
    this.all.append(text);
    this.unread?.append(text);
    if (spilling) this.log.write(text);
  }

  /** Characters in memory, for checking the bounds hold. */
  get memoryChars(): number {
    const a = this.all.size;
    const u = this.unread?.size ?? { headChars: 0, tailChars: 0 };
    return a.headChars + a.tailChars + u.headChars + u.tailChars;
  }

  get totalChars(): number {
    return this.all.total;
  }

  get isEmpty(): boolean {
    return this.all.isEmpty;
  }

  /** The log file's path once it exists (the output outgrew what is kept in memory). */
  get logPath(): string | undefined {
    return this.log.opened ? this.log.path : undefined;
  }

  lastLine(): { line: string; partial: boolean } {
    const { line, partial } = this.all.lastLine();
    return { line: collapseCarriageReturns(line), partial };
  }

  /** The whole output as the model sees it: all of it, or its head and tail with a note of the cut. */
  render(): string {
    return this.format(this.all.parts());
  }

  /** What came since the last call (or since the start), bounded; "" when nothing came. */
  takeUnread(): string {
    const parts = (this.unread ?? this.all).parts();
    this.unread = this.newUnread();
    return this.format(parts);
  }

  /** Marks everything so far as seen. */
  markRead(): void {
    this.unread = this.newUnread();
  }

  close(): void {
    this.log.close();
  }

  private newUnread(): OutputWindow {
    return new OutputWindow(this.limits.update, () => this.spill());
  }

  /** Called before a view first leaves text out: while `all` still holds everything, save it. */
  private spill(): void {
    if (!this.log.started) this.log.start(this.all.text());
  }

  private format(parts: WindowParts): string {
    const head = collapseCarriageReturns(parts.head);
    const tail = collapseCarriageReturns(parts.tail);
    if (parts.droppedChars === 0) return head + tail;
    const count = parts.droppedLines;
    const lines = count > 0 ? `${thousands(count)} line${count === 1 ? "" : "s"} (${size(parts.droppedChars)})` : size(parts.droppedChars);
    const note = `[... ${lines} cut from the middle of the output; ${this.log.describe()} ...]`;
    return `${head}${head === "" || head.endsWith("\n") ? "" : "\n"}\n${note}\n\n${tail}`;
  }
}

function size(chars: number): string {
  if (chars < 1024) return `${chars} characters`;
  if (chars < 1024 * 1024) return `${(chars / 1024).toFixed(1)} KB`;
  return `${(chars / 1024 / 1024).toFixed(1)} MB`;
}

/** A log file opened on demand and written synchronously, so memory never holds a backlog. */
class SpillFile {
  started = false;
  private fd: number | undefined;
  private bytes = 0;
  private full = false;
  private error: string | undefined;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
  ) {}

  get opened(): boolean {
    return this.fd !== undefined || (this.started && this.error === undefined);
  }

  start(content: string): void {
    this.started = true;
    try {
      mkdirSync(path.dirname(this.path), { recursive: true });
      this.fd = openSync(this.path, "w");
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
      return;
    }
    this.write(content);
  }

  write(text: string): void {
    if (this.fd === undefined || this.full) return;
    const length = Buffer.byteLength(text, "utf8");
    try {
      if (this.bytes + length <= this.maxBytes) {
        writeSync(this.fd, text);
        this.bytes += length;
        return;
      }
      const room = Math.max(0, this.maxBytes - this.bytes);
      writeSync(this.fd, Buffer.from(text, "utf8").subarray(0, room));
      this.bytes += room;
      this.full = true;
      writeSync(this.fd, `\n[The log stops here: it reached ${size(this.maxBytes)}.]\n`);
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
      this.close();
    }
  }

  describe(): string {
    if (this.error !== undefined) return `the full output could not be saved (${this.error})`;
    const which = this.full ? `the first ${size(this.maxBytes)} of the output are` : "the full output is";
    return `${which} in ${this.path}; read parts of it with read_file (start_line/end_line) or search it with grep`;
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }
}
