import type { ImagePart } from "@cairn/core";
import type { HistoryInput, HistoryItem, LiveState, Prompt, StatusState, ViewSnapshot } from "./view-types.js";
import { terminalSafe } from "../terminal-text.js";

const released: HistoryItem = { key: -1, kind: "released" };

/** Rows the streaming reply may take on a terminal of `rows` rows (the rest: cards, prompt, status). */
export function liveTextRows(rows: number): number {
  return Math.max(3, Math.min(16, rows - 14));
}

export type SessionViewOptions = {
  /** Longest wait before a streamed change is shown (default 33 ms: at most ~30 renders a second). */
  frameMs?: number;
  columns?: number;
  rows?: number;
  status?: Partial<StatusState>;
};

/**
 * Everything the interactive UI shows, as plain data, and the one place that decides when React
 * re-renders. Streamed changes (tokens, command output) are batched to one render per frame;
 * structural changes (a new card, a prompt) render on the next tick. Finished items go to
 * `history`, which ink prints once into the scrollback; after printing they are released
 * (replaced by a shared placeholder), so a long session keeps only what is still live.
 */
export class SessionView {
  private items: HistoryItem[] = [];
  private nextKey = 0;
  private itemsChanged = false;
  readonly live: LiveState = { text: "", committed: false, reasoning: "", reasoningWords: 0, tools: [], stopping: false };
  readonly status: StatusState;
  private prompts: Prompt[] = [];
  private readonly cancels = new WeakMap<Prompt, () => void>();
  hint: string | undefined;
  private hintTimer: NodeJS.Timeout | undefined;
  queued: string[] = [];
  /** Pictures pasted (as paths) since the last message: they go with the next one. */
  attached: Array<{ name: string; image: ImagePart }> = [];
  expanded = false;
  closing = false;
  size: { columns: number; rows: number };
  /** The full text of the last folded thing (command output, reasoning), for ctrl-o. */
  lastFolded: { title: string; text: string } | undefined;

  private readonly frameMs: number;
  private readonly listeners = new Set<() => void>();
  private snapshot: ViewSnapshot;
  private dirty = false;
  private frameTimer: NodeJS.Timeout | undefined;
  private tick: NodeJS.Immediate | undefined;

  constructor(options: SessionViewOptions = {}) {
    this.frameMs = options.frameMs ?? 33;
    this.size = { columns: options.columns ?? 80, rows: options.rows ?? 24 };
    this.status = {
      mode: "act",
      provider: "",
      model: "",
      contextTokens: 0,
      contextWindow: 0,
      costUsd: null,
      checkpoints: 0,
      yolo: false,
      ...options.status,
    };
    this.snapshot = this.build();
  }

  // --- React side -------------------------------------------------------------------------

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): ViewSnapshot => this.snapshot;

  /** Called after React has committed a snapshot: its history items are printed and can go. */
  releasePrinted(count: number): void {
    for (let i = 0; i < Math.min(count, this.items.length); i++) this.items[i] = released;
  }

  /** Number of history items still held (not yet printed); for memory checks. */
  get heldItems(): number {
    return this.items.filter((item) => item !== released).length;
  }

  // --- changes ------------------------------------------------------------------------------

  /** Schedules a render: `urgent` on the next tick, otherwise within one frame. */
  changed(urgent = true): void {
    this.dirty = true;
    if (urgent || this.frameMs === 0) {
      if (this.frameTimer) clearTimeout(this.frameTimer);
      this.frameTimer = undefined;
      this.tick ??= setImmediate(() => this.flush());
      return;
    }
    if (!this.frameTimer && !this.tick) this.frameTimer = setTimeout(() => this.flush(), this.frameMs);
  }

  /** Renders now whatever changed (tests and benchmarks call it to skip the wait). */
  flush(): void {
    if (this.frameTimer) clearTimeout(this.frameTimer);
    if (this.tick) clearImmediate(this.tick);
    this.frameTimer = undefined;
    this.tick = undefined;
    if (!this.dirty) return;
    this.dirty = false;
    this.pauseClockWhileAsking(Date.now());
    this.snapshot = this.build();
    for (const listener of this.listeners) listener();
  }

  /** Stops the busy clock while a prompt waits for the person; starts it again when none does. */
  private pauseClockWhileAsking(now: number): void {
    const busy = this.live.busy;
    if (!busy) return;
    const asking = this.prompts.length > 0;
    if (asking && busy.pausedAt === undefined) this.live.busy = { ...busy, pausedAt: now };
    if (!asking && busy.pausedAt !== undefined) {
      const { pausedAt, ...rest } = busy;
      this.live.busy = { ...rest, pausedMs: (busy.pausedMs ?? 0) + now - pausedAt };
    }
  }

  private build(): ViewSnapshot {
    const history = this.itemsChanged || this.snapshot === undefined ? this.items.slice() : this.snapshot.history;
    this.itemsChanged = false;
    return {
      history,
      live: { ...this.live, tools: this.live.tools.map((card) => ({ ...card })) },
      prompt: this.prompts[0],
      status: { ...this.status },
      hint: this.hint,
      queued: [...this.queued],
      attached: this.attached.map((a) => a.name),
      typedAhead: [...this.typedAhead],
      size: { ...this.size },
      expanded: this.expanded,
      closing: this.closing,
    };
  }

  private typedAhead: Array<{ id: number; text: string }> = [];

  /**
   * Text for the input box, typed while a prompt had the keys (it goes to the end of what is
   * there). Kept as numbered pieces, so keys that arrive before the box redraws are all kept.
   */
  typeAhead(text: string): void {
    const id = (this.typedAhead.at(-1)?.id ?? 0) + 1;
    this.typedAhead = [...this.typedAhead.slice(-63), { id, text }];
    this.changed();
  }

  add(item: HistoryInput): void {
    // Ink prints strings raw: no escape sequence of a model's or tool's text reaches the terminal.
    this.items.push({ ...terminalSafe(item), key: this.nextKey++ } as HistoryItem);
    this.itemsChanged = true;
    this.changed();
  }

  setSize(columns: number, rows: number): void {
    if (columns === this.size.columns && rows === this.size.rows) return;
    this.size = { columns, rows };
    this.changed();
  }

  setHint(text: string | undefined, ms = 3000): void {
    if (this.hintTimer) clearTimeout(this.hintTimer);
    this.hintTimer = undefined;
    this.hint = text;
    if (text !== undefined && ms > 0) {
      this.hintTimer = setTimeout(() => this.setHint(undefined), ms);
      this.hintTimer.unref();
    }
    this.changed();
  }

  /** Rows the streaming reply may take in the live region before whole lines move to history. */
  get liveTextRows(): number {
    return liveTextRows(this.size.rows);
  }

  // --- prompts ------------------------------------------------------------------------------

  get prompt(): Prompt | undefined {
    return this.prompts[0];
  }

  /**
   * Shows a prompt and waits for the person's answer; prompts wait their turn. If `signal`
   * aborts first (the turn was stopped), the prompt goes away and `onAbort` is the answer.
   */
  ask<T>(make: (resolve: (answer: T) => void) => Prompt, onAbort: T, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve) => {
      if (signal?.aborted) return resolve(onAbort);
      let prompt: Prompt | undefined;
      const settle = (answer: T) => {
        signal?.removeEventListener("abort", abort);
        if (!prompt) return;
        this.prompts = this.prompts.filter((p) => p !== prompt);
        prompt = undefined;
        this.changed();
        resolve(answer);
      };
      const abort = () => settle(onAbort);
      prompt = terminalSafe(make(settle));
      this.cancels.set(prompt, abort);
      signal?.addEventListener("abort", abort, { once: true });
      this.prompts.push(prompt);
      this.changed();
    });
  }

  /** Withdraws the prompt on screen, answering it as if it had been stopped. */
  cancelPrompt(): void {
    const prompt = this.prompts[0];
    if (prompt) this.cancels.get(prompt)?.();
  }

  dispose(): void {
    if (this.frameTimer) clearTimeout(this.frameTimer);
    if (this.tick) clearImmediate(this.tick);
    if (this.hintTimer) clearTimeout(this.hintTimer);
    this.listeners.clear();
  }
}
