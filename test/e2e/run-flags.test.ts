import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type RecordedRequest, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";

const fx = useE2eFixture((fx) => {
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
  writeFileSync(path.join(fx.workspace.dir, "a.txt"), "alpha\n");
});

const call = (name: string, input: Record<string, unknown>, extra: Partial<ScriptedTurn> = {}): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], ...extra });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const anthropic = () => ["--provider", "anthropic", "--base-url", fx.server.url];
const openai = () => ["--provider", "openai", "--model", "gpt-5", "--base-url", `${fx.server.url}/v1`];
const settings = (s: Record<string, unknown>) => writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false, ...s }));
const lastMessage = (r: RecordedRequest) => JSON.stringify((r.body as { messages: unknown[] }).messages.at(-1));
const taskIds = () => (existsSync(path.join(fx.home.dir, "tasks")) ? readdirSync(path.join(fx.home.dir, "tasks")).filter((n) => n !== "index.json") : []);
const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

describe("reasoning: --thinking / --effort", () => {
  it("Anthropic: extended thinking in the request, reasoning streamed as its own events, kept for the next turn and counted", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "thinking", text: "The file is small; read it first." }, { type: "tool_use", name: "read_file", input: { path: "a.txt" } }], usage: { reasoning_tokens: 37 } },
        call("attempt_completion", { result: "alpha" }, { usage: { reasoning_tokens: 0 } }),
      ],
    });
    const run = await runCairn(["run", ...anthropic(), "--thinking", "4096", "--cwd", fx.workspace.dir, "--json", "read a"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(fx.server.requests[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(fx.server.requests[0]!.body.max_tokens).toBeGreaterThan(4096);
    const reasoning = run.events.filter((e) => e.type === "reasoning_delta").map((e) => e.text).join("");
    expect(reasoning).toBe("The file is small; read it first.");
    expect(run.events.filter((e) => e.type === "text_delta").map((e) => e.text).join("")).not.toContain("read it first");
    // Anthropic needs the signed thinking block back with the tool result.
    const replayed = (fx.server.requests[1]!.body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> }).messages.find((m) => m.role === "assistant")!;
    expect(replayed.content[0]).toMatchObject({ type: "thinking", thinking: "The file is small; read it first.", signature: expect.any(String) });
    expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "success", usage: { reasoning_output_tokens: 37 } });
  });

  it("OpenAI: --effort and --thinking become reasoning_effort; reported reasoning tokens are counted", async () => {
    fx.server = await startScriptedModelServer({
      turns: [call("attempt_completion", { result: "done" }, { usage: { reasoning_tokens: 11 } }), call("attempt_completion", { result: "done" })],
    });
    const high = await runCairn(["run", ...openai(), "--effort", "high", "--cwd", fx.workspace.dir, "--json", "think hard"], { env: env() });
    expect(high.code, high.stderr).toBe(0);
    expect(fx.server.requests[0]!.body.reasoning_effort).toBe("high");
    expect(high.events.at(-1)).toMatchObject({ type: "result", usage: { reasoning_output_tokens: 11 } });
    const budget = await runCairn(["run", ...openai(), "--thinking", "3000", "--cwd", fx.workspace.dir, "think some"], { env: env() });
    expect(budget.code, budget.stderr).toBe(0);
    expect(fx.server.requests[1]!.body.reasoning_effort).toBe("medium");
  });

  it("comes from settings.json too, a bad value is one line with exit 2, and nothing is sent when not asked", async () => {
    settings({ effort: "low" });
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "done" }), call("attempt_completion", { result: "done" })] });
    const fromSettings = await runCairn(["run", ...openai(), "--cwd", fx.workspace.dir, "go"], { env: env() });
    expect(fromSettings.code, fromSettings.stderr).toBe(0);
    expect(fx.server.requests[0]!.body.reasoning_effort).toBe("low");
    const bad = await runCairn(["run", ...openai(), "--effort", "extreme", "--cwd", fx.workspace.dir, "go"], { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toContain('--effort must be low, medium or high, got "extreme"');
    settings({});
    const plain = await runCairn(["run", ...anthropic(), "--cwd", fx.workspace.dir, "go"], { env: env() });
    expect(plain.code, plain.stderr).toBe(0);
    expect(fx.server.requests[1]!.body).not.toHaveProperty("thinking");
  });
});

describe("--image", () => {
  it("sends the picture with the task to a model that takes images (repeatable)", async () => {
    const shots = tempDir("shots");
    try {
      writeFileSync(path.join(shots.dir, "one.png"), png);
      writeFileSync(path.join(shots.dir, "two.png"), png);
      fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "two pixels" })] });
      const run = await runCairn(["run", ...anthropic(), "--image", path.join(shots.dir, "one.png"), "--image", path.join(shots.dir, "two.png"), "--cwd", fx.workspace.dir, "what do you see?"], { env: env() });
      expect(run.code, run.stderr).toBe(0);
      const first = (fx.server.requests[0]!.body as { messages: Array<{ content: Array<Record<string, unknown>> }> }).messages[0]!;
      const pictures = first.content.filter((p) => p.type === "image");
      expect(pictures).toHaveLength(2);
      expect(pictures[0]).toMatchObject({ source: { type: "base64", media_type: "image/png", data: png.toString("base64") } });
    } finally {
      shots.cleanup();
    }
  });

  it("is refused in one line, before anything is stored or sent, for a model without images or a file that is not a picture", async () => {
    writeFileSync(path.join(fx.workspace.dir, "shot.png"), png);
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "never" })] });
    const textOnly = ["--provider", "openai-compatible", "--base-url", `${fx.server.url}/v1`, "--model", "text-only-model"];
    const refusedModel = await runCairn(["run", ...textOnly, "--image", path.join(fx.workspace.dir, "shot.png"), "--cwd", fx.workspace.dir, "look"], { env: env() });
    expect(refusedModel.code).toBe(2);
    expect(refusedModel.stderr.trim()).toBe('cairn: text-only-model does not take images; leave the images out, choose a model that does (e.g. claude-sonnet-4-5, gpt-5), or, if it does, say so in settings.json: "models": {"text-only-model": {"images": true}}.');
    const notPicture = await runCairn(["run", ...anthropic(), "--image", path.join(fx.workspace.dir, "a.txt"), "--cwd", fx.workspace.dir, "look"], { env: env() });
    expect(notPicture.code).toBe(2);
    expect(notPicture.stderr.trim().split("\n")).toHaveLength(1);
    expect(notPicture.stderr).toContain("not a PNG, JPEG, GIF or WebP file");
    expect(fx.server.requests).toHaveLength(0);
    expect(taskIds()).toEqual([]);
  });
});

describe("cairn run -c / --continue", () => {
  it("carries on the last task of this workspace with the words as the message", async () => {
    const other = tempDir("other");
    try {
      fx.server = await startScriptedModelServer({
        turns: [
          call("ask_followup_question", { question: "Which file?" }),
          call("attempt_completion", { result: "other workspace" }),
          call("attempt_completion", { result: "used a.txt" }),
        ],
      });
      const first = await runCairn(["run", ...anthropic(), "--cwd", fx.workspace.dir, "summarise a file"], { env: env() });
      expect(first.code, first.stderr).toBe(3);
      const elsewhere = await runCairn(["run", ...anthropic(), "--cwd", other.dir, "something else"], { env: env() });
      expect(elsewhere.code, elsewhere.stderr).toBe(0);
      const carried = await runCairn(["run", "-c", ...anthropic(), "--cwd", fx.workspace.dir, "a.txt please"], { env: env() });
      expect(carried.code, carried.stderr).toBe(0);
      expect(carried.stdout).toBe("used a.txt\n");
      const request = fx.server.requests[2]!;
      expect(JSON.stringify(request.body.messages)).toContain("summarise a file");
      expect(lastMessage(request)).toContain("a.txt please");
      expect(taskIds()).toHaveLength(2);
    } finally {
      other.cleanup();
    }
  });

  it("says so in one line when this workspace has no task", async () => {
    fx.server = await startScriptedModelServer({ turns: [] });
    const empty = tempDir("empty");
    try {
      mkdirSync(path.join(empty.dir, "sub"));
      const run = await runCairn(["run", "--continue", ...anthropic(), "--cwd", path.join(empty.dir, "sub")], { env: env() });
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe(`cairn: No task to continue in ${path.join(empty.dir, "sub")}: start one with cairn run "<task>" (cairn history lists the tasks of every folder).`);
      expect(fx.server.requests).toHaveLength(0);
    } finally {
      empty.cleanup();
    }
  });
});

describe("focus chain settings", () => {
  it("focusChain.enabled false: no parameter offered, no rule, no list; remindEveryTurns sets when the model is reminded", async () => {
    settings({ focusChain: { enabled: false } });
    fx.server = await startScriptedModelServer({ turns: [call("read_file", { path: "a.txt", task_progress: "- [ ] read" }), call("attempt_completion", { result: "ok" })] });
    const off = await runCairn(["run", ...anthropic(), "--cwd", fx.workspace.dir, "--json", "read a"], { env: env() });
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.stringify(fx.server.requests[0]!.body)).not.toContain("task_progress");
    expect(lastMessage(fx.server.requests[1]!)).toContain("alpha");
    expect(lastMessage(fx.server.requests[1]!)).not.toContain("[Task progress");
    expect(off.events.filter((e) => e.type === "task_progress")).toEqual([]);

    settings({ focusChain: { remindEveryTurns: 2 } });
    fx.server.enqueue(call("read_file", { path: "a.txt" }), call("read_file", { path: "a.txt", start_line: 1 }), call("attempt_completion", { result: "ok" }));
    const remind = await runCairn(["run", ...anthropic(), "--cwd", fx.workspace.dir, "read a twice"], { env: env() });
    expect(remind.code, remind.stderr).toBe(0);
    expect(lastMessage(fx.server.requests[3]!)).not.toContain("Reminder: send task_progress");
    expect(lastMessage(fx.server.requests[4]!)).toContain("Reminder: send task_progress");
  });
});
