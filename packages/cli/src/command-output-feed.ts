/** The gutter that marks a line as a command's output, not Cairn's own words. */
export const OUTPUT_PREFIX = "  │ ";

export type OutputFeedOptions = {
  /** Shortest time between two writes of output lines (default 200 ms). */
  intervalMs?: number;
  /** Longer lines are cut (default 200 characters). */
  maxLineChars?: number;
  /** Lines kept per command between two writes; older ones are counted, not shown (default 20). */
  maxLines?: number;
  now?: () => number;
};

type Stream = { partial: string; lines: string[]; skipped: number };

// eslint-disable-next-line no-control-regex
const ansi = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
// eslint-disable-next-line no-control-regex
const controls = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/**
 * Output of running commands as lines for a log, written as it comes but at most every
 * `intervalMs`, so a command that prints fast costs a few writes a second, not one per chunk.
 * Each line is cleaned (colour codes, carriage-return redraws) and cut to a bounded length.
 */
export class CommandOutputFeed {
  private readonly streams = new Map<string, Stream>();
  private lastWrite = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private readonly intervalMs: number;
  private readonly maxLineChars: number;
  private readonly maxLines: number;
  private readonly now: () => number;

  constructor(
    private readonly print: (lines: string[]) => void,
    options: OutputFeedOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 200;
    this.maxLineChars = options.maxLineChars ?? 200;
    this.maxLines = options.maxLines ?? 20;
    this.now = options.now ?? Date.now;
  }

  /** Output of the command `id`, as it arrived. */
  push(id: string, text: string): void {
    let stream = this.streams.get(id);
    if (!stream) {
      stream = { partial: "", lines: [], skipped: 0 };
      this.streams.set(id, stream);
    }
    const parts = (stream.partial + text).split("\n");
    stream.partial = parts.pop()!;
    for (const part of parts) this.add(stream, part);
    if (stream.lines.length > 0) this.schedule();
  }

  /** The command ended: what is left of its output is written now. */
  end(id: string): void {
    const stream = this.streams.get(id);
    if (!stream) return;
    this.streams.delete(id);
    if (stream.partial !== "") this.add(stream, stream.partial);
    this.print(this.take(stream));
  }

  /** Writes everything held and stops the timer (the run is over). */
  close(): void {
    for (const id of [...this.streams.keys()]) this.end(id);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private add(stream: Stream, raw: string): void {
    // A line redrawn with \r (a progress bar) is shown as it was last drawn.
    const drawn = raw.replace(/\r+$/, "").split("\r").at(-1)!;
    const clean = drawn.replace(ansi, "").replace(controls, "");
    stream.lines.push(clean.length > this.maxLineChars ? `${clean.slice(0, this.maxLineChars - 1)}…` : clean);
    if (stream.lines.length > this.maxLines) {
      stream.lines.shift();
      stream.skipped++;
    }
  }

  private take(stream: Stream): string[] {
    const lines = stream.lines.map((line) => `${OUTPUT_PREFIX}${line}`);
    if (stream.skipped > 0) lines.unshift(`${OUTPUT_PREFIX}… ${stream.skipped} line${stream.skipped === 1 ? "" : "s"} not shown`);
    stream.lines = [];
    stream.skipped = 0;
    return lines;
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = this.lastWrite + this.intervalMs - this.now();
    if (wait <= 0) return this.write();
    this.timer = setTimeout(() => this.write(), wait);
    this.timer.unref();
  }

  private write(): void {
    this.timer = undefined;
    this.lastWrite = this.now();
    const lines = [...this.streams.values()].flatMap((stream) => this.take(stream));
    if (lines.length > 0) this.print(lines);
  }
}
