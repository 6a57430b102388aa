import { readFileSync } from "node:fs";
import type { ImagePart } from "./types.js";

/**
 * A run's recording (`cairn run --record <file>`), read back by `cairn replay`. JSON Lines, one
 * record a line, in the order written; README.md documents it for other tools. `version` changes
 * only when a reader of the old shape would misread the new one (added fields do not change it).
 */
export const recordingVersion = 1;

/** The first line: what the file is. */
export type RecordingHeader = { type: "recording"; version: number; created: string };

/** What the person sent: a run's task, or a resume's message. `mode` when the host switched it for this message. */
export type RecordedMessage = { type: "message"; text: string; images?: ImagePart[]; mode?: "act" | "plan" };

/**
 * The settings a recording carries: how the model was asked, so a replay asks the same way. What
 * the run may do (approvals, yolo, command rules, the sandbox, hooks, language servers, the problems
 * command, the browser, budgets and limits) is neither written nor read back: a recording is a
 * file someone hands over, and a replay's power is the person's own flags and settings.
 */
export const recordedSettingKeys = [
  "provider",
  "model",
  "baseUrl",
  "protocol",
  "models",
  "fallbackModel",
  "compactionModel",
  "thinking",
  "effort",
  "compaction",
  "focusChain",
  "toolExecution",
  "requestTimeout",
  "retry",
] as const;

/**
 * The task the message went to, as it opened: its workspace (tool results naming it are compared
 * with the replay's own in its place), its settings of `recordedSettingKeys` as merged from every
 * layer (so a replay asks the same provider the same way), and, for a resume, which task.
 */
export type RecordedSession = {
  type: "session";
  workspace: string;
  settings: Record<string, unknown>;
  mode: "act" | "plan";
  yolo: boolean;
  resumed?: string;
};

/**
 * One model request and what came back, as the provider sent it. `step` counts requests in the
 * order they were sent (lines are written as responses end, so concurrent sub-agents may interleave).
 * The request's secrets are gone (`[redacted]`); the body is the JSON the SDK sent, parsed.
 * `chunks` are the response body's pieces as they arrived, as UTF-8 text (a character split between
 * two pieces is kept whole in the first). `cut`: the body ended in an error or a stop, not at its end.
 * `error`: no response at all (the connection failed), in its one-line message.
 */
export type RecordedExchange = {
  type: "exchange";
  step: number;
  request: { method: string; url: string; headers: Record<string, string>; body: unknown };
  response?: { status: number; headers: Record<string, string>; chunks: string[]; cut?: true };
  error?: string;
};

export type RecordingLine = RecordingHeader | RecordedMessage | RecordedSession | RecordedExchange;

/** A recording that cannot be read; the message names the file, the line and what to do. */
export class RecordingError extends Error {
  override name = "RecordingError";
}

export type Recording = { messages: RecordedMessage[]; sessions: RecordedSession[]; exchanges: RecordedExchange[] };

const kinds = new Set(["recording", "message", "session", "exchange"]);

/** Reads and checks a recording: its header and version, and each line's kind. */
export function readRecording(file: string): Recording {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RecordingError(`Cannot read the recording ${file} (${code ?? String(error)}); pass a file written by cairn run --record.`);
  }
  const lines: RecordingLine[] = [];
  for (const [index, raw] of text.split("\n").entries()) {
    if (raw.trim() === "") continue;
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      throw new RecordingError(`${file}:${index + 1} is not JSON; a recording has one JSON record a line (cairn run --record writes it).`);
    }
    const type = (line as { type?: unknown } | null)?.type;
    if (typeof type !== "string" || !kinds.has(type)) throw new RecordingError(`${file}:${index + 1} has no known "type" (recording, message, session or exchange).`);
    lines.push(line as RecordingLine);
  }
  const header = lines[0];
  if (header?.type !== "recording") throw new RecordingError(`${file} does not start with a recording header; it was not written by cairn run --record.`);
  if (header.version !== recordingVersion) {
    throw new RecordingError(`${file} is a version ${String(header.version)} recording; this Cairn reads version ${recordingVersion}: replay it with the Cairn that wrote it.`);
  }
  return {
    messages: lines.filter((l): l is RecordedMessage => l.type === "message"),
    sessions: lines.filter((l): l is RecordedSession => l.type === "session"),
    exchanges: lines.filter((l): l is RecordedExchange => l.type === "exchange").sort((a, b) => a.step - b.step),
  };
}

/** Header names whose values are credentials: never written. */
const secretHeader = /authorization|api[-_]?key|token|secret|cookie|session|auth/i;

/** The headers with every credential replaced, names lower-cased. */
export function redactedHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = secretHeader.test(name) ? "[redacted]" : value;
  });
  return out;
}
