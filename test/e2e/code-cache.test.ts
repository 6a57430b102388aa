import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

/**
 * `cairn run` runs its bundle from a V8 code cache in CAIRN_HOME/cache/code (issue 26,
 * packages/cli/src/code-cache.ts): written after the first task that ends well, read by the next
 * run instead of compiling again. It is code the next run executes, so what a task's own commands
 * or a damaged disk leave there must never run.
 */
const fx = useE2eFixture();
const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = call("attempt_completion", { result: "Done." });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const cacheDir = () => path.join(fx.home.dir, "cache", "code");
const caches = () => (existsSync(cacheDir()) ? readdirSync(cacheDir()).filter((n) => n.endsWith(".v8")) : []);
const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

async function task(...turns: ScriptedTurn[]) {
  fx.server = await startScriptedModelServer({ turns });
  const run = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", "read,edit,all-commands", "--json", "Go."], { env: env() });
  await fx.server.close();
  return run;
}

describe("cairn run's code cache", () => {
  it("is written after the first task (one that ran a command, so loaded the shell parser), private to the person, and read (not written again) by the next", async () => {
    expect((await task(call("execute_command", { command: "echo hi", requires_approval: false }), done)).code).toBe(0);
    expect(caches()).toHaveLength(1);
    const file = path.join(cacheDir(), caches()[0]!);
    expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const first = statSync(file);

    const second = await task(call("write_to_file", { path: "a.txt", content: "from the cached run\n" }), done);
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "a.txt"), "utf8")).toBe("from the cached run\n");
    const after = statSync(file);
    expect([after.ino, after.mtimeMs]).toEqual([first.ino, first.mtimeMs]);
    expect(caches()).toHaveLength(1);
  });

  it("serves `cairn resume` too: a resumed task that ends well writes the cache", async () => {
    expect((await task(done)).code).toBe(0);
    rmSync(cacheDir(), { recursive: true });
    const [id] = readdirSync(path.join(fx.home.dir, "tasks")).filter((n) => n !== "index.json");
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "b.txt", content: "from the resumed task\n" }), done] });
    const resumed = await runCairn(["resume", id!, "go on", "--auto-approve", "edit", "--base-url", fx.server.url, "--json"], { env: env() });
    await fx.server.close();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, "b.txt"), "utf8")).toBe("from the resumed task\n");
    expect(caches()).toHaveLength(1);
  });

  it("is not written by `cairn run --help`, which compiles too little to keep", async () => {
    const run = await runCairn(["run", "--help"], { env: env() });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Usage");
    expect(caches()).toEqual([]);
  });

  it("is not written by a task that fails", async () => {
    fx.server = await startScriptedModelServer({ turns: [{ fault: { status: 401, message: "invalid x-api-key" } }] });
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", "Go."], { env: env() });
    expect(run.code).not.toBe(0);
    expect(caches()).toEqual([]);
  });

  it("a damaged cache is not run: the task works and the cache is written afresh", async () => {
    expect((await task(done)).code).toBe(0);
    const file = path.join(cacheDir(), caches()[0]!);
    const damaged = readFileSync(file);
    for (const at of [64, damaged.length >> 1, damaged.length - 16]) damaged[at]! ^= 0xff;
    writeFileSync(file, damaged, { mode: 0o600 });

    const run = await task(call("attempt_completion", { result: "still right" }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("still right");
    expect(sha(file)).not.toBe(createHash("sha256").update(damaged).digest("hex"));
    expect((await task(done)).code).toBe(0); // and the new one is sound
  });

  it("a command the model runs cannot replace the cache (CAIRN_HOME is out of the sandbox's sight); the same command writes in the workspace", async () => {
    expect((await task(done)).code).toBe(0);
    const file = path.join(cacheDir(), caches()[0]!);
    const before = sha(file);
    const planted = `printf 'planted' > ${JSON.stringify(file)}; ln -sf /tmp/planted ${JSON.stringify(path.join(cacheDir(), "x.v8"))}`;
    const control = `printf 'planted' > ${JSON.stringify(path.join(fx.workspace.dir, "control.v8"))}`;
    const run = await task(
      call("execute_command", { command: planted, requires_approval: false }),
      call("execute_command", { command: control, requires_approval: false }),
      done,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(sha(file)).toBe(before);
    expect(caches()).toHaveLength(1);
    expect(readFileSync(path.join(fx.workspace.dir, "control.v8"), "utf8")).toBe("planted");
  });
});
