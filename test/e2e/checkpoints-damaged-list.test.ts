import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

/**
 * `cairn checkpoints <id>` on a store damaged for real (its HEAD, its branch, one checkpoint's
 * objects, all of them): the checkpoints it still holds are listed, one line says which could not
 * be read and what to do, and the exit code is 1 only when none could be.
 */
const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const cli = (...args: string[]) => runCairn(args, { env: env(), timeoutMs: 60_000 });
const taskId = () => readdirSync(path.join(fx.home.dir, "tasks")).find((n) => n !== "index.json")!;
const storeOf = () => {
  const base = path.join(fx.home.dir, "checkpoints");
  return path.join(base, readdirSync(base).find((n) => !n.startsWith("."))!);
};
const rows = (stdout: string) => stdout.trim().split("\n").filter(Boolean).map((line) => Number(line.trim().split(/\s+/)[0]));

/** A task with a checkpoint per write: task start, three writes (each its own commit), task completed. */
async function taskWithCheckpoints(): Promise<{ id: string; hashes: string[]; store: string }> {
  fx.server = await startScriptedModelServer({
    turns: [
      call("write_to_file", { path: "a.txt", content: "a\n" }),
      call("write_to_file", { path: "b.txt", content: "b\n" }),
      call("write_to_file", { path: "c.txt", content: "c\n" }),
      call("attempt_completion", { result: "done" }),
    ],
  });
  const run = await cli("run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", "edit", "write three files");
  expect(run.code, run.stderr).toBe(0);
  const id = taskId();
  const listed = await cli("checkpoints", id, "--json");
  expect(listed.code, listed.stderr).toBe(0);
  const hashes = (JSON.parse(listed.stdout) as Array<{ hash: string; readable: boolean }>).map((r) => (expect(r.readable).toBe(true), r.hash));
  expect(new Set(hashes).size).toBe(4); // start, a, b, c (the end points at c's)
  return { id, hashes, store: storeOf() };
}

/** Makes the object `hash` unreadable in the store for real: its loose file overwritten, or, if packed, every pack and loose object unpacked except it. */
function corruptObject(store: string, hash: string): void {
  const loose = path.join(store, "objects", hash.slice(0, 2), hash.slice(2));
  if (!existsSync(loose)) {
    // Packed: unpack everything else as loose objects, then drop the packs.
    const gitEnv = { PATH: process.env.PATH, HOME: store, GIT_DIR: store, GIT_CONFIG_NOSYSTEM: "1" };
    const packs = path.join(store, "objects", "pack");
    for (const pack of readdirSync(packs).filter((n) => n.endsWith(".pack"))) {
      const moved = path.join(store, `${pack}.moved`);
      writeFileSync(moved, readFileSync(path.join(packs, pack)));
      for (const ext of [".pack", ".idx", ".rev"]) rmSync(path.join(packs, pack.replace(/\.pack$/, ext)), { force: true });
      execFileSync("git", ["unpack-objects", "-q"], { input: readFileSync(moved), env: gitEnv });
      rmSync(moved);
    }
  }
  expect(existsSync(loose)).toBe(true);
  rmSync(loose, { force: true });
  writeFileSync(loose, "garbage, not zlib\n");
}

const oneLine = (stderr: string) => {
  expect(stderr).not.toContain("    at ");
  expect(stderr.trim().split("\n")).toHaveLength(1);
  return stderr.trim();
};

describe("cairn checkpoints on a damaged store", () => {
  it("a garbage HEAD: every checkpoint is still listed from the store's objects, and one line says the store is damaged and what to do", async () => {
    const { id, store } = await taskWithCheckpoints();
    writeFileSync(path.join(store, "HEAD"), "garbage\n");
    const list = await cli("checkpoints", id);
    expect(list.code, list.stderr).toBe(0);
    expect(rows(list.stdout)).toEqual([1, 2, 3, 4, 5]);
    expect(oneLine(list.stderr)).toMatch(
      new RegExp(`^cairn: The checkpoint store at ${store} is damaged \\(not a git repository.*\\); the checkpoints above are what it still holds; diff and restore need a working store: move ${store} aside to start a new one \\(its checkpoints are then gone\\)\\.$`),
    );
  }, 90_000);

  it("the latest checkpoint's commit corrupt and the branch pointing at it: the others are listed, the line names the unreadable ones", async () => {
    const { id, hashes, store } = await taskWithCheckpoints();
    corruptObject(store, hashes.at(-1)!);
    const list = await cli("checkpoints", id);
    expect(list.code, list.stderr).toBe(0);
    // Checkpoints 4 and 5 (the last write and the task's end) are the same commit.
    expect(rows(list.stdout)).toEqual([1, 2, 3]);
    expect(oneLine(list.stderr)).toMatch(
      new RegExp(`^cairn: Checkpoints 4, 5 could not be read from the checkpoint store at ${store} \\(the store is damaged: .*\\); diff and restore need a working store: move ${store} aside to start a new one \\(its checkpoints are then gone\\)\\.$`),
    );
    const json = await cli("checkpoints", id, "--json");
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as Array<{ readable: boolean }>).map((r) => r.readable)).toEqual([true, true, true, false, false]);
  }, 90_000);

  it("an earlier checkpoint's commit corrupt, the store otherwise working: it alone is left out, and the others still diff", async () => {
    const { id, hashes, store } = await taskWithCheckpoints();
    corruptObject(store, hashes[1]!);
    const list = await cli("checkpoints", id);
    expect(list.code, list.stderr).toBe(0);
    expect(rows(list.stdout)).toEqual([1, 3, 4, 5]);
    expect(oneLine(list.stderr)).toBe(`cairn: Checkpoint 2 could not be read from the checkpoint store at ${store} (their data is missing or damaged); it cannot be diffed or restored; the others listed can.`);
    const diff = await cli("checkpoints", "diff", id, "3");
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/added\s+c\.txt/);
  }, 90_000);

  it("the store moved aside: one line says it is gone, exit 1", async () => {
    const { id, store } = await taskWithCheckpoints();
    rmSync(store, { recursive: true });
    const list = await cli("checkpoints", id);
    expect(list.code).toBe(1);
    expect(list.stdout).toBe("");
    expect(oneLine(list.stderr)).toBe(`cairn: None of the 5 checkpoints of this task can be read: the checkpoint store at ${store} is gone (moved aside or deleted). The task's next step starts a new store.`);
    expect(existsSync(store)).toBe(false); // listing never makes a store
  }, 90_000);

  it("every object deleted: nothing can be listed, one line says so, exit 1", async () => {
    const { id, store } = await taskWithCheckpoints();
    for (const entry of readdirSync(path.join(store, "objects"))) if (entry !== "info") rmSync(path.join(store, "objects", entry), { recursive: true });
    const list = await cli("checkpoints", id);
    expect(list.code).toBe(1);
    expect(list.stdout).toBe("");
    expect(oneLine(list.stderr)).toMatch(new RegExp(`^cairn: None of the 5 checkpoints could be read from the checkpoint store at ${store} \\(the store is damaged: .*\\); diff and restore need a working store: move .* aside`));
  }, 90_000);
});
