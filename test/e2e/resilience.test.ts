import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../support/scripted-model-server.js";
import { cleanEnv, runCairn, tempDir, xmlCall } from "../support/cairn-cli.js";

let workspace: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let server: ScriptedModelServer | undefined;

beforeEach(() => {
  workspace = tempDir("ws");
  home = tempDir("home");
  // Fast backoff so tests don't wait seconds; the policy itself is unit-tested.
  writeFileSync(path.join(home.dir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 20, maxDelayMs: 200 } }));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  workspace.cleanup();
  home.cleanup();
});

const complete = (text: string) => ({ content: [{ type: "tool_use" as const, name: "attempt_completion", input: { result: text } }] });
const longText = "I am thinking about this task at some length before acting on it. ".repeat(6);

function anthropic(extra: string[] = []) {
  return ["run", "--provider", "anthropic", "--base-url", server!.url, "--cwd", workspace.dir, "--json", ...extra];
}
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k", CAIRN_HOME: home.dir });

describe("retries", () => {
  it("retries a 429 (honouring retry-after), a 500 and a cut stream, then completes", async () => {
    server = await startScriptedModelServer({
      turns: [
        { fault: { status: 429, retryAfter: "0" } },
        { fault: { status: 500 } },
        { content: [{ type: "text", text: longText }, { type: "tool_use", name: "attempt_completion", input: { result: "never seen" } }], cutAfterChars: 60 },
        complete("done after retries"),
      ],
    });
    const run = await runCairn(anthropic(["fix it"]), { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(4);
    const retries = run.events.filter((e) => e.type === "system" && e.subtype === "api_retry");
    expect(retries.map((e) => [e.attempt, e.error_status])).toEqual([
      [1, 429],
      [2, 500],
      [3, null],
    ]);
    expect(retries[0]!.retry_delay_ms).toBe(0);
    // What the cut stream had shown is withdrawn, and the final answer is the retry's.
    expect(run.events.some((e) => e.type === "stream_discarded")).toBe(true);
    expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "done after retries", num_turns: 1 });
  });

  it("retries a stream cut on the OpenAI wire too", async () => {
    server = await startScriptedModelServer({
      turns: [{ content: [{ type: "text", text: longText }], cutAfterChars: 40 }, complete("ok")],
    });
    const run = await runCairn(["run", "--provider", "openai", "--base-url", `${server.url}/v1`, "--cwd", workspace.dir, "--json", "go"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(run.events.filter((e) => e.type === "system" && e.subtype === "api_retry")).toHaveLength(1);
  });

  it("gives up after --retries and exits 1 with the provider's error", async () => {
    server = await startScriptedModelServer({ turns: [{ fault: { status: 503 } }, { fault: { status: 503 } }, complete("too late")] });
    const run = await runCairn(anthropic(["--retries", "1", "go"]), { env: env() });
    expect(run.code).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "error_during_execution", is_error: true });
  });

  it("does not retry an authentication error", async () => {
    server = await startScriptedModelServer({ turns: [{ fault: { status: 401 } }, complete("unreachable")] });
    const run = await runCairn(anthropic(["go"]), { env: env() });
    expect(run.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(run.events.find((e) => e.type === "error")!.message).toMatch(/API key/);
  });

  it("switches to --fallback-model when retries are used up", async () => {
    server = await startScriptedModelServer({ turns: [{ fault: { status: 529 } }, { fault: { status: 529 } }, complete("fallback did it")] });
    const run = await runCairn(anthropic(["--model", "claude-sonnet-4-5", "--fallback-model", "claude-haiku-4-5", "--retries", "1", "go"]), { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests.map((r) => (r.body as { model: string }).model)).toEqual(["claude-sonnet-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"]);
    expect(run.events.find((e) => e.type === "system" && e.subtype === "fallback_model")).toMatchObject({ from_model: "claude-sonnet-4-5", to_model: "claude-haiku-4-5" });
  });
});

describe("output-limit continuation", () => {
  it("continues a reply cut by max_tokens mid-tool-call and joins the pieces into one message", async () => {
    server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "text", text: "Writing it.\n<write_to_file>\n<path>a.txt</path>\n<content>\nline one\nli" }], stopReason: "max_tokens" },
        { content: [{ type: "text", text: "ne two\n</content>\n</write_to_file>" }] },
        { content: [{ type: "text", text: xmlCall("attempt_completion", { result: "written" }) }] },
      ],
    });
    const run = await runCairn(anthropic(["--protocol", "xml", "--auto-approve", "edit", "write a.txt"]), { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(workspace.dir, "a.txt"), "utf8")).toBe("line one\nline two");
    const continuation = JSON.stringify(server.requests[1]!.body);
    expect(continuation).toContain("cut off by the output token limit");
    // The next turn's history holds one joined assistant message, not the pieces.
    const history = JSON.stringify(server.requests[2]!.body);
    expect(history).toContain("line one\\nline two");
    expect(history).not.toContain("cut off by the output token limit");
  });
});

describe("streaming tool execution", () => {
  it("runs a tool as soon as its block is complete, before the reply finishes", async () => {
    const tail = Array.from({ length: 20 }, (_, i) => `More words ${i}. `).join("");
    server = await startScriptedModelServer({
      turns: [
        // A block with file text runs when the next block starts (nothing after it can show it was cut short then); one without, at once.
        { content: [{ type: "text", text: `${xmlCall("write_to_file", { path: "early.txt", content: "early" })}\n${xmlCall("read_file", { path: "early.txt" })}\n${tail}` }], chunkSize: 8, chunkDelayMs: 15 },
        { content: [{ type: "text", text: xmlCall("attempt_completion", { result: "ok" }) }] },
      ],
    });
    const run = await runCairn(anthropic(["--protocol", "xml", "--auto-approve", "edit", "go"]), { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const resultAt = run.events.findIndex((e) => e.type === "tool_call_update" && "content" in e && e.name === "write_to_file");
    const lastDeltaOfTurn1 = run.events.findIndex((e) => e.type === "assistant") - 1;
    expect(resultAt).toBeGreaterThan(0);
    expect(resultAt).toBeLessThan(lastDeltaOfTurn1);
    const readAt = run.events.findIndex((e) => e.type === "tool_call_update" && "content" in e && e.name === "read_file");
    expect(readAt).toBeGreaterThan(resultAt);
    expect(readAt).toBeLessThan(lastDeltaOfTurn1);
    expect(run.events.slice(resultAt, lastDeltaOfTurn1).some((e) => e.type === "text_delta")).toBe(true);
  });
});
