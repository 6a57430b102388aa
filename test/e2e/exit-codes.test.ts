import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cairnBin, cleanEnv, runCairn, xmlCall } from "../support/cairn-cli.js";

const fx = useE2eFixture();

const env = (extra: Record<string, string> = {}) => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir, ...extra });
const call = (name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, name, input }] });
const args = (...rest: string[]) => ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, ...rest];

describe("exit code 0: completed", () => {
  it("prints the completion and exits 0", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "All good.", command: "cat out.txt" })] });
    const run = await runCairn(args("do it"), { env: env() });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("All good.\n");
    expect(run.stderr).toContain("cat out.txt");
  });
});

describe("exit code 141: stdout's reader went away", () => {
  it("ends quietly when the reader of its output is gone (`cairn history | head -1`), with no failure logged", async () => {
    const child = spawn(process.execPath, [cairnBin, "--help"], { env: env(), stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy(); // the reader is gone before the first line is written
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(141);
    expect(existsSync(path.join(fx.home.dir, "logs", "errors.log"))).toBe(false);
  });
});

describe("exit code 3: needs the person", () => {
  it("prints the follow-up question and its options, exits 3", async () => {
    fx.server = await startScriptedModelServer({
      turns: [{ content: [{ type: "text", text: xmlCall("ask_followup_question", { question: "Which database?", options: '["PostgreSQL", "SQLite"]' }) }] }],
    });
    const run = await runCairn(args("--protocol", "xml", "set up storage"), { env: env() });
    expect(run.code, run.stderr).toBe(3);
    expect(run.stdout).toBe("Which database?\n- PostgreSQL\n- SQLite\n");
  });

  it("reports the question in the --json result", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("ask_followup_question", { question: "Which port?" })] });
    const run = await runCairn(args("--json", "start it"), { env: env() });
    expect(run.code).toBe(3);
    expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "needs_input", is_error: false, question: { text: "Which port?", options: [] } });
  });
});

describe("exit code 1: the task failed", () => {
  it("stops at --max-turns", async () => {
    writeFileSync(path.join(fx.workspace.dir, "a.txt"), "a\n");
    fx.server = await startScriptedModelServer({ responder: () => call("read_file", { path: "a.txt" }) });
    const run = await runCairn(args("--max-turns", "2", "--json", "loop"), { env: env() });
    expect(run.code).toBe(1);
    expect(fx.server.requests).toHaveLength(2);
    expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "error_max_turns", is_error: true, num_turns: 2 });
  });

  it("nudges a model that uses no tool, then stops after 3 such replies", async () => {
    fx.server = await startScriptedModelServer({ responder: () => ({ content: [{ type: "text", text: "I think we are done here." }] }) });
    const run = await runCairn(args("--json", "chat"), { env: env() });
    expect(run.code).toBe(1);
    expect(fx.server.requests).toHaveLength(3);
    expect(JSON.stringify(fx.server.requests[1]!.body)).toContain("You did not use a tool");
    expect(run.events.at(-1)).toMatchObject({ subtype: "error_mistake_limit" });
  });

  it("stops after 3 consecutive invalid calls, telling the model what was wrong each time", async () => {
    fx.server = await startScriptedModelServer({ responder: () => call("read_file", { file: "a.txt" }) });
    const run = await runCairn(args("--json", "read"), { env: env() });
    expect(run.code).toBe(1);
    expect(fx.server.requests).toHaveLength(3);
    expect(JSON.stringify(fx.server.requests[1]!.body)).toContain("missing required parameter 'path'");
    expect(run.events.at(-1)).toMatchObject({ subtype: "error_mistake_limit" });
  });
});

describe("exit code 2: bad usage or configuration", () => {
  const cases: Array<[string, string[], Record<string, string>, RegExp]> = [
    ["unknown provider", ["run", "--provider", "acme", "x"], {}, /Unknown provider "acme"/],
    ["missing key", ["run", "--provider", "anthropic", "x"], { ANTHROPIC_API_KEY: "" }, /set ANTHROPIC_API_KEY or CAIRN_API_KEY/],
    ["missing OpenRouter key", ["run", "--provider", "openrouter", "x"], {}, /set OPENROUTER_API_KEY or CAIRN_API_KEY/],
    ["bad approval name", ["run", "--auto-approve", "read,everything", "x"], {}, /Unknown --auto-approve value "everything"/],
    ["bad protocol", ["run", "--protocol", "json", "x"], {}, /--protocol must be xml or native/],
    ["no task", ["run"], {}, /No task given/],
    ["unknown flag", ["run", "--frobnicate", "x"], {}, /^cairn: unknown option --frobnicate; cairn run --help lists the options\n$/],
    ["mistyped flag", ["run", "--modle", "m", "x"], {}, /^cairn: unknown option --modle; did you mean --model\?\n$/],
    ["mistyped flag without a command", ["--modle", "m", "x"], {}, /^cairn: unknown option --modle; did you mean --model\?\n$/],
    ["--verbose of other agents", ["--verbose"], {}, /^cairn: unknown option --verbose; progress already goes to stderr step by step, --json prints every event/],
    ["--verbose on run", ["run", "--verbose", "x"], {}, /^cairn: unknown option --verbose; progress already goes to stderr/],
    ["compatible without base URL", ["run", "--provider", "openai-compatible", "--model", "m", "x"], {}, /needs a base URL/],
    ["missing workspace", ["run", "--cwd", "/nonexistent/dir", "x"], {}, /is not a directory/],
  ];
  it.each(cases)("%s: one clear line on stderr", async (_name, argv, extra, message) => {
    const run = await runCairn(argv, { env: cleanEnv({ CAIRN_HOME: fx.home.dir, ...extra }) });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("a broken settings.json names the file and what to do, and is left as it was", async () => {
    const file = path.join(fx.home.dir, "settings.json");
    writeFileSync(file, '{ "provider": "anthropic", }');
    const run = await runCairn(["run", "x"], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(file);
    expect(run.stderr).toMatch(/not valid JSON.*Fix the file or move it aside/);
  });

  it.each([["web", "--port", "0"], ["acp"]])("cairn %s refuses a broken settings.json at the start, in one line, as cairn run does", async (...argv) => {
    const file = path.join(fx.home.dir, "settings.json");
    writeFileSync(file, '{ "provider": "anthropic", }');
    const run = await runCairn(argv, { env: env() });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^cairn: \S+settings\.json is not valid JSON: .*Fix the file or move it aside\.\n$/);
    expect(run.stderr).toContain(file);
  });

  it("cairn web's own usage errors are one line and exit 2, as the command's are", async () => {
    const run = await runCairn(["web", "--json"], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("cairn: --json is for cairn run; cairn web shows events in the page.\n");
  });

  it("a settings.json with a wrong value says which", async () => {
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ protocol: "json" }));
    const run = await runCairn(["run", "x"], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/"protocol"/);
  });
});

describe("--json", () => {
  it("prints only NDJSON on stdout, from system/init to result, with Claude Code's field names", async () => {
    writeFileSync(path.join(fx.workspace.dir, "a.txt"), "a\n");
    fx.server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "text", text: "Reading." }, { type: "tool_use", name: "read_file", input: { path: "a.txt" } }], usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 50 } },
        call("attempt_completion", { result: "done" }),
      ],
    });
    const run = await runCairn(args("--json", "go"), { env: env() });
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines.length).toBe(run.events.length);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(run.events[0]).toMatchObject({ type: "system", subtype: "init", cwd: fx.workspace.dir, model: "claude-sonnet-4-5", permissionMode: "default" });
    expect(run.events[0]!.tools).toEqual(expect.arrayContaining(["read_file", "attempt_completion"]));
    const assistant = run.events.find((e) => e.type === "assistant")!;
    expect(assistant.message).toMatchObject({ role: "assistant", content: [{ type: "text", text: "Reading." }, { type: "tool_use", name: "read_file", input: { path: "a.txt" } }] });
    const result = run.events.at(-1)!;
    expect(result).toMatchObject({ type: "result", subtype: "success", is_error: false, num_turns: 2, result: "done" });
    expect(result.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number), cache_read_input_tokens: 50 });
    expect(typeof result.session_id).toBe("string");
    expect(typeof result.duration_ms).toBe("number");
    // Sonnet: 100 in × $3 + 20 out × $15 + 50 cache reads × $0.30 per million, plus the second request.
    expect(result.total_cost_usd as number).toBeGreaterThan((100 * 3 + 20 * 15 + 50 * 0.3) / 1e6 - 1e-12);
  });
});
