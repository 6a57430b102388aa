import type { ModelEvent } from "./types.js";

type Delta = Extract<ModelEvent, { type: "text-delta" | "reasoning-delta" | "tool-call-delta" }>;

/**
 * Deltas of one kind that arrive together are passed on as one. One network read may hold hundreds
 * of a provider's events (a fast model, a proxy that buffers, a moment this process was busy), and
 * every event a reply passes on costs its consumers a turn each: the protocol parser, the hosts'
 * renderers, a JSON line of `cairn run --json`. A delta is held only until what arrived with it is
 * read (see readyThisTurn), so nothing waits on the network.
 */
export class DeltaBatch {
  private held: Delta | undefined;

  /** Whether a delta is held. */
  get holding(): boolean {
    return this.held !== undefined;
  }

  /** Holds `delta`, joined to the held one when it continues it; returns the held one it cannot join, to pass on first. */
  add(delta: Delta): Delta | undefined {
    const held = this.held;
    const joined = held === undefined ? undefined : join(held, delta);
    if (joined !== undefined) {
      this.held = joined;
      return undefined;
    }
    this.held = delta;
    return held;
  }

  /** The held delta, to pass on now; none is held afterwards. */
  take(): Delta | undefined {
    const held = this.held;
    this.held = undefined;
    return held;
  }
}

function join(held: Delta, next: Delta): Delta | undefined {
  if (held.type === "text-delta" && next.type === "text-delta") return { type: "text-delta", text: held.text + next.text };
  // A signature closes its thinking block: it is passed on as it came.
  if (held.type === "reasoning-delta" && next.type === "reasoning-delta" && held.signature === undefined && next.signature === undefined) {
    return { type: "reasoning-delta", text: held.text + next.text };
  }
  if (held.type === "tool-call-delta" && next.type === "tool-call-delta" && held.id === next.id) return { type: "tool-call-delta", id: held.id, argsText: held.argsText + next.argsText };
  return undefined;
}

/**
 * Whether `pending` is fulfilled before this process turns to its next task (I/O, timers): true
 * when what it waits for has already arrived (a stream's queued chunk), false when it waits on the
 * network or was rejected.
 */
export function readyThisTurn(pending: Promise<unknown>): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const turn = setImmediate(() => resolve(false));
    pending.then(
      () => {
        clearImmediate(turn);
        resolve(true);
      },
      () => {
        clearImmediate(turn);
        resolve(false);
      },
    );
  });
}
