import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, startCairn } from "../support/cairn-cli.js";

/**
 * What a task's journal costs in fsyncs and renames (issue 26), counted in the real CLI by a
 * preload that wraps node:fs (test/support/fs-counter), default settings (checkpoints, sandbox,
 * rules on). Before, a one-turn task made 4 fsyncs and 8 renames of its task files: the state of
 * a run's start written again though unchanged, each checkpoint record on its own, the history
 * index at the task's creation.
 */
const fx = useE2eFixture();
const counter = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../support/fs-counter/count.mjs");

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const countFile = () => path.join(fx.home.dir, "fs-count.txt");
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir, NODE_OPTIONS: `--import=${counter}`, CAIRN_COUNT_FS: countFile() });
const taskId = () => readdirSync(path.join(fx.home.dir, "tasks")).find((n) => n !== "index.json" && !n.startsWith("."))!;
const metadata = () => JSON.parse(readFileSync(path.join(fx.home.dir, "tasks", taskId(), "metadata.json"), "utf8")) as Record<string, unknown> & { checkpoints: Array<{ label: string }> };

/** The counted calls on the task files: fsyncs, renames onto metadata.json and onto the history index. */
function taskWrites() {
  const lines = readFileSync(countFile(), "utf8").split("\n").filter((l) => l.includes(`${path.sep}tasks${path.sep}`));
  return {
    fsyncs: lines.filter((l) => l.startsWith("fsync ")).length,
    metadataRenames: lines.filter((l) => l.startsWith("rename ") && / \S*\/metadata\.json /.test(l)).length,
    indexRenames: lines.filter((l) => l.startsWith("rename ") && / \S*\/tasks\/index\.json /.test(l)).length,
  };
}

describe("the journal's writes", () => {
  it("a one-turn task: 2 fsyncs (its step, its result), the history index written once, and the result and checkpoints on disk when it ends", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("attempt_completion", { result: "Done." })] });
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", "Say you are done."], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const writes = taskWrites();
    expect(writes.fsyncs).toBe(2);
    expect(writes.indexRenames).toBe(1);
    // Created, the step, the result; a checkpoint record that comes in on its own between them adds one.
    expect(writes.metadataRenames).toBeLessThanOrEqual(4);
    const meta = metadata();
    expect(meta).toMatchObject({ status: "completed", result: "Done.", turns: 1 });
    expect(meta.checkpoints.map((c) => c.label)).toEqual(["task start", "task completed"]);
    const index = JSON.parse(readFileSync(path.join(fx.home.dir, "tasks", "index.json"), "utf8")) as Array<{ id: string; status: string }>;
    expect(index).toEqual([expect.objectContaining({ id: taskId(), status: "completed" })]);
  });

  it("a task of several steps: one fsync per step and one for the result", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "a.txt", content: "A" }),
        call("execute_command", { command: "echo ok", requires_approval: false }),
        call("read_file", { path: "a.txt" }),
        call("attempt_completion", { result: "Done." }),
      ],
    });
    const args = ["--provider", "anthropic", "--base-url", fx.server.url, "--auto-approve", "edit,all-commands"];
    const run = await runCairn(["run", ...args, "--cwd", fx.workspace.dir, "--json", "Write a."], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(taskWrites().fsyncs).toBe(4 + 1);
    expect(metadata()).toMatchObject({ status: "completed", turns: 4 });
  });

  it("kill -9 while the next request waits: the step's state and its checkpoint were already on disk", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "a.txt", content: "A" }), { delayMs: 60_000 }] });
    const args = ["--provider", "anthropic", "--base-url", fx.server.url, "--auto-approve", "edit"];
    const cairn = startCairn(["run", ...args, "--cwd", fx.workspace.dir, "--json", "write a"], { env: env() });
    // The step's checkpoint is made behind the next request; its record reaches metadata.json with no later state write to carry it.
    await cairn.waitForLine((line) => line.includes('"type":"checkpoint"') && line.includes("turn 1: write_to_file"), 30_000);
    while (fx.server.requests.length < 2 || metadata().checkpoints.length < 2) await new Promise((r) => setTimeout(r, 20));
    cairn.child.kill("SIGKILL");
    await cairn.exited;
    const meta = metadata();
    expect(meta).toMatchObject({ status: "running", turns: 1 });
    expect((meta.usage as { output_tokens: number }).output_tokens).toBeGreaterThan(0);
    expect(meta.checkpoints.map((c) => c.label)).toEqual(["task start", "turn 1: write_to_file"]);
  });
});
