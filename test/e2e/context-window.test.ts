import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { contextWindowFault, startScriptedModelServer, type RecordedRequest, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const isSummaryRequest = (r: RecordedRequest) => JSON.stringify(r.body.system ?? "").includes("working memory of a coding agent");

/** Source-like text, so tokens are about a quarter of the characters, as in real code. */
function sourceFile(i: number, kb: number): string {
  const lines: string[] = [];
  for (let n = 0; lines.join("\n").length < kb * 1024; n++) lines.push(`export function handler${i}_${n}(request: Request): Response { return respond(request.id + ${n}, "value ${i}.${n}"); }`);
  return `${lines.join("\n")}\n`;
}

describe("a long task in a small window", () => {
  it.each(["auto", "truncate"] as const)("500 turns with large tool outputs complete inside a 32k-token window (--compaction %s)", async (compaction) => {
    mkdirSync(path.join(fx.workspace.dir, "src"));
    for (let i = 0; i < 60; i++) writeFileSync(path.join(fx.workspace.dir, "src", `f${i}.ts`), sourceFile(i, 6));
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ models: { "small-model": { contextWindow: 32_000, maxOutputTokens: 4_000 } } }));
    let turns = 0;
    fx.server = await startScriptedModelServer({
      responder: (request) => {
        if (isSummaryRequest(request)) return { content: [{ type: "text", text: `Task: read every file. Progress: ${turns} files read so far.` }] };
        turns++;
        return turns < 500 ? call("read_file", { path: `src/f${turns % 60}.ts` }) : call("attempt_completion", { result: `read ${turns - 1} files` });
      },
    });
    const run = await runCairn(
      ["run", "--provider", "anthropic", "--model", "small-model", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--compaction", compaction, "--max-turns", "600", "--json", "Read the files in src one by one."],
      { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }), timeoutMs: 240_000 },
    );
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ subtype: "success", result: "read 499 files", num_turns: 500 });
    const boundaries = run.events.filter((e) => e.type === "system" && e.subtype === "compact_boundary");
    expect(boundaries.length).toBeGreaterThan(3);
    // No request came near the window: the scripted server reports input tokens as body size / 4.
    const largest = Math.max(...fx.server.requests.map((r) => JSON.stringify(r.body).length / 4));
    expect(largest).toBeLessThan(32_000);
    // The task itself survived every shrink.
    for (const r of fx.server.requests.filter((r) => !isSummaryRequest(r))) expect(JSON.stringify(r.body.messages[0])).toContain("Read the files in src one by one.");
    if (compaction === "auto") expect(fx.server.requests.some(isSummaryRequest)).toBe(true);
    else expect(fx.server.requests.some(isSummaryRequest)).toBe(false);
  }, 300_000);

  it("recovers from a context-too-long error with one truncation and a retry", async () => {
    writeFileSync(path.join(fx.workspace.dir, "a.txt"), "a\n");
    fx.server = await startScriptedModelServer({
      turns: [call("read_file", { path: "a.txt" }), call("read_file", { path: "a.txt" }), { fault: contextWindowFault() }, call("attempt_completion", { result: "fit" })],
    });
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", "go"], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(fx.server.requests).toHaveLength(4);
    expect(run.events.find((e) => e.type === "system" && e.subtype === "compact_boundary")).toBeDefined();
    expect(run.events.at(-1)).toMatchObject({ subtype: "success", num_turns: 3 });
  });

  it("--max-budget-usd stops the run before it spends more", async () => {
    writeFileSync(path.join(fx.workspace.dir, "a.txt"), "a\n");
    fx.server = await startScriptedModelServer({ responder: () => ({ ...call("read_file", { path: "a.txt" }), usage: { input_tokens: 100_000, output_tokens: 1_000 } }) });
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--max-budget-usd", "0.5", "--json", "go"], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
    });
    expect(run.code).toBe(1);
    // Sonnet: $0.315 per request at 100k in / 1k out; the second request reaches $0.63, so no third.
    expect(fx.server.requests).toHaveLength(2);
    expect(run.events.at(-1)).toMatchObject({ subtype: "error_max_budget_usd", is_error: true });
  });
});
