/**
 * Replays one recorded provider conversation through the real `cairn` CLI and checks what a person
 * would check afterwards. A recording (see test/support/provider-replays/README.md for the format)
 * names the provider and model, the task, the workspace files, the responses as they went over the
 * wire, a scripted finish turn, and its expectations; `checkReplay` returns every expectation that
 * failed, in words, so one assertion shows them all.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cleanEnv, repoRoot, runCairn, type CliRun } from "./cairn-cli.js";
import { startReplayServer, type ReplayResponse, type ReplayServer } from "./replay-server.js";
import { endedCalls } from "./tool-call-events.js";

export type Recording = {
  name: string;
  title: string;
  provider: string;
  model: string;
  args: string[];
  task: string;
  workspace: { files?: Record<string, string>; binary?: Record<string, string> };
  responses: ReplayResponse[];
  finish: { tool: string; input: Record<string, unknown>; usage: { input: number; output: number } };
  expect: Record<string, any>;
  /** Settings written to CAIRN_HOME/settings.json besides the fast retry backoff. */
  settings?: Record<string, unknown>;
};

export type Replayed = { run: CliRun; server: ReplayServer };

/** The project's own recordings (see test/support/provider-replays/README.md). */
export const ownRecordings = path.join(repoRoot, "test/support/provider-replays");

/**
 * One of the project's own recorded response bodies, served one socket write per SSE event (the
 * recordings keep each body whole, not how TCP cut it; an event is the smallest piece a provider sends).
 * `edit` changes the body first, for a variant a test states (a stream cut before its end).
 */
export function recordedStream(name: string, edit: (body: string) => string = (body) => body): ReplayResponse {
  const body = edit(readFileSync(path.join(ownRecordings, name), "utf8"));
  const chunks = body.split(/(?<=\n\n)/).filter((chunk) => chunk !== "");
  return { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8" }, chunks };
}

/** A response the recording repeats only for retries of the same request ("a retry gets the same shape"). */
const isRetryRepeat = (response: ReplayResponse & { adapted?: string[] }) => (response.adapted ?? []).some((note) => /a retry gets the same/i.test(note));

/** Serves the recording, runs `cairn run --json` on it in `workspace` with `home` as CAIRN_HOME, and closes the server. */
export async function replay(recording: Recording, dirs: { workspace: string; home: string }): Promise<Replayed> {
  for (const [name, text] of Object.entries(recording.workspace.files ?? {})) writeFileSync(path.join(dirs.workspace, name), text);
  for (const [name, base64] of Object.entries(recording.workspace.binary ?? {})) writeFileSync(path.join(dirs.workspace, name), Buffer.from(base64, "base64"));
  // Fast backoff so retries take milliseconds; the policy itself is unit-tested.
  writeFileSync(path.join(dirs.home, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 20, maxDelayMs: 200 }, ...recording.settings }));
  const server = await startReplayServer({
    wire: recording.provider === "anthropic" ? "anthropic" : "openai",
    responses: recording.responses.map((response, i) => ({ ...response, retryOnly: i > 0 && isRetryRepeat(recording.responses[i]!) })),
    finish: {
      content: [{ type: "tool_use", name: recording.finish.tool, input: recording.finish.input }],
      usage: { input_tokens: recording.finish.usage.input, output_tokens: recording.finish.usage.output },
    },
  });
  try {
    const args = ["run", "--json", "--provider", recording.provider, "--model", recording.model, "--cwd", dirs.workspace, "--base-url", `${server.url}/v1`];
    const run = await runCairn([...args, ...recording.args, recording.task], {
      env: cleanEnv({ CAIRN_HOME: dirs.home, CAIRN_API_KEY: "replay-key" }),
      timeoutMs: 90_000,
    });
    return { run, server };
  } finally {
    await server.close();
  }
}

type Event = CliRun["events"][number];
const textOf = (events: Event[], type: string) => events.filter((e) => e.type === type).map((e) => String(e.text)).join("");
/** The final assistant messages' text (discarded attempts excluded). */
const answerText = (events: Event[]) =>
  events
    .filter((e) => e.type === "assistant")
    .flatMap((e) => (e.message as { content: Array<{ type: string; text?: string }> }).content)
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("\n");

/** A tool result in a request body, whichever wire: its text and error flag. */
function toolResult(body: any, id: string): { text: string; isError: boolean } | undefined {
  for (const message of body.messages ?? []) {
    if (message.role === "tool" && message.tool_call_id === id) {
      return { text: typeof message.content === "string" ? message.content : JSON.stringify(message.content), isError: false };
    }
    if (message.role === "user" && Array.isArray(message.content)) {
      const block = message.content.find((b: any) => b.type === "tool_result" && b.tool_use_id === id);
      if (block) return { text: typeof block.content === "string" ? block.content : JSON.stringify(block.content), isError: block.is_error === true };
    }
  }
  return undefined;
}

/** The assistant message in a request body that carries the call `id`. */
function assistantWith(body: any, id: string): any {
  return (body.messages ?? []).find(
    (m: any) =>
      m.role === "assistant" &&
      ((m.tool_calls ?? []).some((c: any) => c.id === id) || (Array.isArray(m.content) && m.content.some((b: any) => b.type === "tool_use" && b.id === id))),
  );
}

function assistantText(message: any): string {
  if (typeof message.content === "string") return message.content;
  return (message.content ?? []).filter((b: any) => b.type === "text").map((b: any) => b.text).join("");
}

/** Every expectation of the recording that the run did not meet, one line each. */
export function checkReplay(recording: Recording, { run, server }: Replayed): string[] {
  const e = recording.expect;
  const failures: string[] = [];
  const fail = (what: string) => failures.push(what);
  const result = run.events.find((ev) => ev.type === "result") as (Event & { usage: Record<string, number>; total_cost_usd: number | null }) | undefined;
  const bodies = server.requests.map((r) => r.body);
  const text = textOf(run.events, "text_delta");
  const reasoning = textOf(run.events, "reasoning_delta");

  if (e.exit !== undefined && run.code !== e.exit) fail(`exit ${run.code}, expected ${e.exit}: ${run.stderr.trim().split("\n").at(-1)}`);
  if (e.requests?.min !== undefined && bodies.length < e.requests.min) fail(`${bodies.length} requests, expected at least ${e.requests.min}`);
  if (e.requests?.max !== undefined && bodies.length > e.requests.max) fail(`${bodies.length} requests, expected at most ${e.requests.max}`);

  // Every request well-formed for its wire: no two calls of the conversation share an id (Anthropic rejects a repeated tool_use id).
  bodies.forEach((body, i) => {
    const ids = (body?.messages ?? []).flatMap((m: any) =>
      m.role !== "assistant" ? [] : [...(m.tool_calls ?? []).map((c: any) => c.id), ...(Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_use").map((b: any) => b.id) : [])],
    );
    if (new Set(ids).size !== ids.length) fail(`request ${i + 1} repeats a tool-call id: ${ids.join(", ")}`);
    for (const id of ids) if (!toolResult(body, id)) fail(`request ${i + 1} carries call ${id} without its result`);
  });

  const ended = endedCalls(run.events);
  const started = run.events.filter((ev) => ev.type === "tool_call");
  if (e.tool_calls) {
    const expected = e.tool_calls as Array<{ name: string; input?: Record<string, unknown>; status?: string }>;
    const real = ended.filter((c) => c.name !== recording.finish.tool);
    if (real.length !== expected.length) fail(`${real.length} tool calls ended (${real.map((c) => c.name).join(", ")}), expected ${expected.length}`);
    const ids = new Set(started.map((c) => c.tool_use_id));
    if (ids.size !== started.length) fail(`two tool calls share one tool_use_id in --json: ${started.map((c) => c.tool_use_id).join(", ")}`);
    expected.forEach((want, i) => {
      const got = real[i];
      const input = started.find((c) => c.tool_use_id === got?.tool_use_id)?.input as Record<string, unknown> | undefined;
      if (!got || got.name !== want.name) return fail(`call ${i + 1} is ${got?.name}, expected ${want.name}`);
      if (want.status && got.status !== want.status) fail(`call ${i + 1} (${want.name}) ${got.status}, expected ${want.status}: ${got.content.slice(0, 200)}`);
      for (const [key, value] of Object.entries(want.input ?? {})) {
        if (JSON.stringify(input?.[key]) !== JSON.stringify(value)) fail(`call ${i + 1} input ${key}=${JSON.stringify(input?.[key])}, expected ${JSON.stringify(value)}`);
      }
    });
  }
  for (const want of (e.tool_results ?? []) as Array<{ request: number; id: string; contains?: string; is_error?: boolean }>) {
    const body = bodies[want.request];
    const got = body && toolResult(body, want.id);
    if (!got) fail(`request ${want.request + 1} has no tool result for ${want.id}`);
    else {
      if (want.contains && !got.text.includes(want.contains)) fail(`tool result ${want.id} lacks "${want.contains}": ${got.text.slice(0, 200)}`);
      if (want.is_error !== undefined && got.isError !== want.is_error) fail(`tool result ${want.id} is_error ${got.isError}, expected ${want.is_error}`);
    }
  }
  for (const want of (e.assistant_in_request ?? []) as Array<{ request: number; tool_call_id: string; text_contains?: string; reasoning_content?: string }>) {
    const message = bodies[want.request] && assistantWith(bodies[want.request], want.tool_call_id);
    if (!message) fail(`request ${want.request + 1} has no assistant message with call ${want.tool_call_id}`);
    else {
      if (want.text_contains && !assistantText(message).includes(want.text_contains)) fail(`assistant message of ${want.tool_call_id} lacks "${want.text_contains}"`);
      if (want.reasoning_content !== undefined && message.reasoning_content !== want.reasoning_content) {
        fail(`assistant message of ${want.tool_call_id} has reasoning_content ${JSON.stringify(message.reasoning_content)?.slice(0, 80)}, expected the recorded reasoning`);
      }
    }
  }
  if (e.text_contains && !`${text}\n${answerText(run.events)}`.includes(e.text_contains)) fail(`the answer lacks "${e.text_contains}"`);
  for (const excluded of (e.text_excludes ?? []) as string[]) {
    if (text.includes(excluded) || answerText(run.events).includes(excluded)) fail(`the answer text shows "${excluded.slice(0, 40)}"`);
  }
  if (e.reasoning_contains && !reasoning.includes(e.reasoning_contains)) fail(`the reasoning lacks "${e.reasoning_contains}"`);
  if (e.text_excludes_reasoning && reasoning.length > 0 && text.includes(reasoning.slice(0, 40))) fail(`the answer text shows the reasoning`);
  if (e.text_once !== undefined) {
    const count = answerText(run.events).split(e.text_once).length - 1;
    if (count !== 1) fail(`"${e.text_once}" is in the answers ${count} times, expected once`);
  }
  if (e.usage) {
    for (const [key, value] of Object.entries(e.usage as Record<string, number>)) {
      if (result?.usage[key] !== value) fail(`usage ${key} ${result?.usage[key]}, expected ${value}`);
    }
  }
  if (e.usage_consistent && (result?.usage.output_tokens ?? 0) < (result?.usage.reasoning_output_tokens ?? 0)) {
    fail(`output_tokens ${result?.usage.output_tokens} < reasoning_output_tokens ${result?.usage.reasoning_output_tokens}`);
  }
  if (e.usage_present) {
    const estimated = run.events.filter((ev) => ev.type === "usage" && (ev.usage as { estimated?: boolean } | undefined)?.estimated === true);
    if (estimated.length === 0) fail(`no request's usage was estimated where the server reported none`);
  }
  if (e.cost) {
    const cost = result?.total_cost_usd ?? null;
    if (e.cost.null_or_max !== undefined && cost !== null && cost > e.cost.null_or_max) fail(`cost ${cost}, expected at most ${e.cost.null_or_max} (${e.cost.why})`);
    if (e.cost.approx !== undefined && (cost === null || Math.abs(cost - e.cost.approx) > e.cost.approx * 0.02)) fail(`cost ${cost}, expected about ${e.cost.approx}`);
    if (e.cost.min !== undefined && (cost === null || cost < e.cost.min)) fail(`cost ${cost}, expected at least ${e.cost.min}`);
    if (e.cost.not_null && cost === null) fail(`cost is null, expected a price`);
  }
  const retries = run.events.filter((ev) => ev.type === "system" && ev.subtype === "api_retry");
  if (e.max_api_retries !== undefined && retries.length > e.max_api_retries) fail(`${retries.length} retries, expected at most ${e.max_api_retries}: ${String(retries[0]?.error)}`);
  if (e.no_stream_discarded && run.events.some((ev) => ev.type === "stream_discarded")) fail(`a stream was discarded`);
  if (e.image_part) {
    const body = bodies[e.image_part.request];
    const messages: any[] = body?.messages ?? [];
    const hasImage = messages.some((m) => Array.isArray(m.content) && m.content.some((p: any) => p.type === "image_url" || p.type === "image"));
    if (!hasImage) fail(`request ${e.image_part.request + 1} carries no image part`);
    const toolText = messages.filter((m) => m.role === "tool").map((m) => JSON.stringify(m.content)).join("");
    if (/[A-Za-z0-9+/]{60,}/.test(toolText)) fail(`a tool message carries base64 text`);
  }
  if (e.continuation) {
    const body = bodies[e.continuation.request];
    const assistant = [...(body?.messages ?? [])].reverse().find((m: any) => m.role === "assistant");
    if (!assistant || assistantText(assistant) !== e.continuation.assistant_text) fail(`request ${e.continuation.request + 1} does not continue from "${e.continuation.assistant_text}"`);
  }
  if (e.thinking_roundtrip) {
    const body = bodies[e.thinking_roundtrip.request];
    const blocks = (body?.messages ?? []).filter((m: any) => m.role === "assistant").flatMap((m: any) => (Array.isArray(m.content) ? m.content : []));
    const thinking = blocks.find((b: any) => b.type === "thinking");
    const required = e.thinking_roundtrip.required !== false;
    if (thinking && (thinking.thinking !== e.thinking_roundtrip.thinking || thinking.signature !== e.thinking_roundtrip.signature)) fail(`the thinking block sent back differs from the one received`);
    if (!thinking && required) fail(`request ${e.thinking_roundtrip.request + 1} does not send the thinking block back`);
  }
  return failures;
}
