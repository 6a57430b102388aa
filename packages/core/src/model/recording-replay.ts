import { ModelError } from "./errors.js";
import { fetchResponse } from "./fetch-response.js";
import type { RecordedExchange, Recording } from "./recording-format.js";

/**
 * The transport of `cairn replay`: a fetch that never touches the network and answers each model
 * request with the next recorded response, byte for byte as the provider sent it, so the SDKs and
 * Cairn parse it as they did. What the run sent back (its tool results, the person's later words)
 * is checked against what the recorded request carried: the first difference, or a request the
 * recording has no reply for, stops the replay with one line saying which step diverged.
 */
export class RecordingReplay {
  private readonly used = new Set<number>();
  private asked = 0;
  /** The first divergence, in one line. */
  divergence: string | undefined;

  constructor(
    private readonly recording: Recording,
    /** The replay's workspace and the recorded one: a result naming either reads as `<workspace>`. */
    private readonly workspaces: { live: string; recorded: string },
  ) {}

  get replies(): number {
    return this.recording.exchanges.length;
  }

  /** After the run: a divergence, or the replies it never asked for, in one line; undefined when it went as recorded. */
  outcome(): string | undefined {
    if (this.divergence) return this.divergence;
    const left = this.recording.exchanges.filter((e) => !this.used.has(e.step));
    if (left.length === 0) return undefined;
    return `replay diverged after step ${this.asked}: the run ended, but the recording has ${plural(left.length, "more reply", "more replies")} (from its step ${left[0]!.step}).`;
  }

  readonly fetch: typeof globalThis.fetch = async (_input, init) => {
    const step = ++this.asked;
    if (this.divergence) throw this.stop();
    const sent = fingerprint(parseBody(init?.body), this.workspaces.live);
    const unused = this.recording.exchanges.filter((e) => !this.used.has(e.step));
    // Sub-agents ask concurrently, so the same requests may come in another order: the first unused
    // reply whose request carried the same results is this one's.
    const match = unused.find((e) => same(fingerprint(e.request.body, this.workspaces.recorded), sent));
    if (!match) {
      const next = unused[0];
      this.divergence = next
        ? `replay diverged at step ${step}: ${difference(fingerprint(next.request.body, this.workspaces.recorded), sent)} (recorded step ${next.step}).`
        : `replay diverged at step ${step}: the run asked for reply ${step}, but the recording has only ${plural(this.replies, "reply", "replies")}.`;
      throw this.stop();
    }
    this.used.add(match.step);
    return served(match);
  };

  private stop(): ModelError {
    // Not retryable: asking again would diverge again.
    return new ModelError("config", this.divergence!);
  }
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A recorded response as a Response whose body arrives in the recorded pieces. */
function served(exchange: RecordedExchange): Response {
  if (!exchange.response) throw new ModelError("network", exchange.error ?? "the recorded request got no response");
  const { status, headers, chunks, cut } = exchange.response;
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(out) {
      if (next < chunks.length) return out.enqueue(encoder.encode(chunks[next++]!));
      if (cut) out.error(new ModelError("stream_cut", "the recorded response stream ended before it finished"));
      else out.close();
    },
  });
  const sendable = Object.fromEntries(Object.entries(headers).filter(([name]) => !/^(content-length|content-encoding|transfer-encoding)$/i.test(name)));
  return fetchResponse(status === 204 || status === 304 ? null : body, { status, headers: sendable });
}

function parseBody(raw: unknown): unknown {
  if (typeof raw !== "string") return raw ?? null;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * What a request carries that the run produced rather than the model: every message after the
 * model's first reply that is not the model's (tool results, the person's later words), as text,
 * with the workspace's path as `<workspace>` and the environment's time and context lines left out.
 * The system prompt and the first message are left out too: they name the time and the folder.
 */
export function fingerprint(body: unknown, workspace: string): string[] {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return [];
  const first = messages.findIndex((m) => (m as { role?: unknown }).role === "assistant");
  if (first === -1) return [];
  return messages
    .slice(first)
    .filter((m) => !["assistant", "system"].includes(String((m as { role?: unknown }).role)))
    .map((m) => normalized(textOf(m), workspace));
}

function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(textOf).join("\n");
  if (value === null || typeof value !== "object") return "";
  const part = value as Record<string, unknown>;
  if (typeof part.text === "string") return part.text;
  if (part.content !== undefined) return textOf(part.content);
  if (part.output !== undefined) return textOf(part.output);
  return "";
}

function normalized(text: string, workspace: string): string {
  return text
    .split(workspace)
    .join("<workspace>")
    .replace(/<environment_details>[\s\S]*?<\/environment_details>/g, "")
    .replace(/\[Environment: [^\]\n]*\]/g, "")
    .trim();
}

/** A secret the recording took out (`[REDACTED:kind]`) stands for whatever the run has there. */
const redactionMark = /\[REDACTED:[^\]\s]*\]/;

function fits(recorded: string, live: string): boolean {
  if (recorded === live) return true;
  if (!redactionMark.test(recorded)) return false;
  const pieces = recorded.split(new RegExp(redactionMark.source, "g")).map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${pieces.join("[\\s\\S]*?")}$`).test(live);
}

function same(recorded: string[], live: string[]): boolean {
  return recorded.length === live.length && recorded.every((text, i) => fits(text, live[i]!));
}

/** The first difference between the recorded request's results and the live one's, in a few words. */
function difference(recorded: string[], live: string[]): string {
  const at = recorded.findIndex((text, i) => live[i] === undefined || !fits(text, live[i]));
  const index = at === -1 ? recorded.length : at;
  if (index >= live.length || index >= recorded.length) return `the run sent back ${plural(live.length, "result", "results")} where the recording has ${recorded.length}`;
  return `result ${index + 1} differs: the run sent ${clip(live[index]!)}, the recording has ${clip(recorded[index]!)}`;
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ");
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 77)}...` : line);
}
