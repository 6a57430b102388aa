import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, startCairn } from "../support/cairn-cli.js";

/**
 * A big workspace's first checkpoint index, through the real CLI and real git: it is built by a
 * detached git named in a marker in the store, so a one-off `cairn run` that changed nothing exits
 * without waiting for it, and the next run adopts it. The indexer is stopped (SIGSTOP) as soon as
 * its marker appears, so that "still running" does not depend on how fast git is; it is
 * continued (or killed) when the test says.
 */

const fx = useE2eFixture();
const FILES = 12_000; // over the 10,000 a first index needs to be built by a detached git
const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = call("attempt_completion", { result: "done" });
const file = (p: string) => path.join(fx.workspace.dir, p);
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const args = (...rest: string[]) => ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", ...rest];
type Events = Array<{ type: string } & Record<string, unknown>>;
const notices = (events: Events) => events.flatMap((e) => (e.type === "system" && e.subtype === "notice" ? [String(e.message)] : []));
const labels = (events: Events) => events.flatMap((e) => (e.type === "checkpoint" ? [String(e.label)] : []));
const parse = (stdout: string): Events => stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Events[number]);

function bigWorkspace(): void {
  for (let d = 0; d * 100 < FILES; d++) {
    mkdirSync(file(`d${d}`));
    for (let i = d * 100; i < (d + 1) * 100; i++) writeFileSync(file(`d${d}/f${i}.ts`), `export const v${i} = ${i};\n`);
  }
}

/** The one shadow store under CAIRN_HOME. */
function storeDir(): string {
  const base = path.join(fx.home.dir, "checkpoints");
  const [only] = readdirSync(base);
  return path.join(base, only!);
}

/** Polls (every 5 ms) for the indexer's marker and stops the indexer it names at once. */
async function stopIndexer(): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const marker = path.join(storeDir(), "cairn-first-index.json");
      const pid = (JSON.parse(readFileSync(marker, "utf8")) as { pid: number }).pid;
      process.kill(pid, "SIGSTOP");
      return pid;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await sleep(5);
  }
}

/** The process's state letter from /proc (R, S, T stopped, Z zombie), or "gone". */
function state(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").charAt(0);
  } catch {
    return "gone";
  }
}

async function ended(pid: number): Promise<void> {
  for (const deadline = Date.now() + 60_000; !["Z", "X", "gone"].includes(state(pid)) && Date.now() < deadline; ) await sleep(20);
}

/** The last run packs the store's 12,000 new objects in a detached git: it is let finish before the folders go. */
async function packed(): Promise<void> {
  const marker = () => existsSync(path.join(fx.home.dir, "checkpoints")) && existsSync(path.join(storeDir(), "cairn-packing"));
  for (const deadline = Date.now() + 60_000; marker() && Date.now() < deadline; ) await sleep(50);
}

function git(...gitArgs: string[]): string {
  return execFileSync("git", [`--git-dir=${storeDir()}`, ...gitArgs], { encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: fx.home.dir, GIT_CONFIG_NOSYSTEM: "1" } });
}

/** Restores the task's first checkpoint through the CLI and returns what the file reads then. */
async function restoreFirst(events: Events, p: string): Promise<string> {
  const id = String(events.find((e) => e.type === "result")?.session_id);
  const listed = await runCairn(["checkpoints", id], { env: env(), timeoutMs: 60_000 });
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toMatch(/1 +[0-9a-f]{10} .* task start/);
  const restored = await runCairn(["checkpoints", "restore", id, "1", "--workspace"], { env: env(), timeoutMs: 60_000 });
  expect(restored.code, restored.stderr).toBe(0);
  return readFileSync(file(p), "utf8");
}

describe("a big workspace's first checkpoint index", () => {
  it("a one-turn task exits while its indexer still runs; a second run then does too, a writing run waits for it and adopts its index", async () => {
    bigWorkspace();
    fx.server = await startScriptedModelServer({ turns: [done, done, call("write_to_file", { path: "d0/f0.ts", content: "changed\n" }), done] });
    let pid = 0;
    try {
      const first = startCairn(args("only answer"), { env: env(), cwd: fx.workspace.dir });
      pid = await stopIndexer();
      expect(await first.exited, first.output().stderr).toBe(0);
      const firstEvents = parse(first.output().stdout);
      expect(firstEvents.find((e) => e.type === "result")?.subtype).toBe("success");
      expect(notices(firstEvents)).toEqual(
        expect.arrayContaining(["checkpoints: indexing 12,000 files…", `checkpoints: the first index goes on in the background (git, pid ${pid}); the next task here starts from it`]),
      );
      expect(labels(firstEvents)).toEqual([]);
      // The process has exited; the indexer it started has not.
      expect(state(pid)).toBe("T");

      // A second run while it lives: it waits for that indexer rather than starting one (or breaking its lock), and leaves it too.
      const second = await runCairn(args("only answer again"), { env: env(), cwd: fx.workspace.dir, timeoutMs: 60_000 });
      expect(second.code, second.stderr).toBe(0);
      expect(notices(second.events)).toContain(`checkpoints: the first index goes on in the background (git, pid ${pid}); the next task here starts from it`);
      expect(notices(second.events).filter((n) => n.startsWith("checkpoints: indexing"))).toEqual([]);
      expect(state(pid)).toBe("T");
      expect(existsSync(path.join(storeDir(), "cairn-first-index.json"))).toBe(true);

      // A run that writes: the write waits for its baseline, which waits for the indexer.
      const writer = startCairn(args("--auto-approve", "edit", "write"), { env: env(), cwd: fx.workspace.dir });
      await writer.waitForLine((line) => line.includes('"type":"usage"'), 60_000); // the model's reply, with the write, is in
      expect(readFileSync(file("d0/f0.ts"), "utf8")).toBe("export const v0 = 0;\n");
      process.kill(pid, "SIGCONT");
      expect(await writer.exited, writer.output().stderr).toBe(0);
      const events = parse(writer.output().stdout);
      expect(labels(events)).toEqual(["task start", "turn 1: write_to_file", "task completed"]);
      // Adopted, not indexed again.
      expect(notices(events).filter((n) => n.startsWith("checkpoints: index"))).toEqual([expect.stringMatching(/^checkpoints: indexed 12,000 files in \d+\.\d s$/)]);
      expect(readdirSync(storeDir()).filter((name) => name.startsWith("cairn-first-index"))).toEqual([]);
      const start = events.find((e) => e.type === "checkpoint" && e.label === "task start");
      expect(git("ls-tree", "-r", "--name-only", String(start?.hash)).trim().split("\n")).toHaveLength(FILES);
      git("fsck", "--no-progress");

      expect(await restoreFirst(events, "d0/f0.ts")).toBe("export const v0 = 0;\n");
    } finally {
      if (pid) {
        if (state(pid) === "T") process.kill(pid, "SIGCONT");
        await ended(pid);
      }
      await packed();
    }
  }, 120_000);

  it("an indexer killed mid-way (kill -9) leaves a store the next run repairs: it indexes again and its checkpoints work", async () => {
    bigWorkspace();
    fx.server = await startScriptedModelServer({ turns: [done, call("write_to_file", { path: "d1/f100.ts", content: "changed\n" }), done] });
    const first = startCairn(args("only answer"), { env: env(), cwd: fx.workspace.dir });
    const pid = await stopIndexer();
    try {
      expect(await first.exited, first.output().stderr).toBe(0);
    } finally {
      process.kill(pid, "SIGKILL");
      await ended(pid);
    }

    const writer = await runCairn(args("--auto-approve", "edit", "write"), { env: env(), cwd: fx.workspace.dir, timeoutMs: 90_000 }).finally(packed);
    expect(writer.code, writer.stderr).toBe(0);
    expect(labels(writer.events)).toEqual(["task start", "turn 1: write_to_file", "task completed"]);
    expect(notices(writer.events)).toEqual(expect.arrayContaining(["checkpoints: indexing 12,000 files…", expect.stringMatching(/^checkpoints: indexed 12,000 files in /)]));
    // What the killed one left (its marker, its index's lock) is gone.
    expect(readdirSync(storeDir()).filter((name) => name.startsWith("cairn-first-index"))).toEqual([]);
    git("fsck", "--no-progress");
    expect(await restoreFirst(writer.events, "d1/f100.ts")).toBe("export const v100 = 100;\n");
  }, 120_000);
});
