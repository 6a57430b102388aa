import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

/**
 * What checkpoints cost a task, through the real CLI: how many git processes a task starts (counted
 * by a `git` first on PATH that logs each call, then runs the real one), that nothing is packed on
 * the task's path, and how a big workspace is indexed (a notice; the first write waits for it).
 */

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = call("attempt_completion", { result: "done" });
const file = (p: string) => path.join(fx.workspace.dir, p);
const read = (p: string) => readFileSync(file(p), "utf8");

/** A PATH whose `git` logs its arguments, one line per process, to `log`. */
function loggingGit(log: string): string {
  const realGit = ["/usr/bin/git", "/usr/local/bin/git", "/bin/git"].find((candidate) => existsSync(candidate));
  expect(realGit, "git must be installed").toBeDefined();
  const bin = path.join(fx.home.dir, "shim-bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, "git"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
  chmodSync(path.join(bin, "git"), 0o755);
  return `${bin}:${process.env.PATH ?? ""}`;
}

/** The subcommand of a logged git call, after git's own `-c key=value` options. */
function subcommand(line: string): string {
  const words = line.split(" ");
  let i = 0;
  while (words[i] === "-c") i += 2;
  return words[i] ?? "";
}

async function run(args: string[], env: Record<string, string>) {
  return runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, ...args], {
    env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir, ...env }),
    timeoutMs: 90_000,
  });
}

const checkpointLabels = (events: { type: string }[]) => events.flatMap((e) => (e.type === "checkpoint" ? [(e as { label?: string }).label] : []));
const notices = (events: { type: string }[]) =>
  events.flatMap((e) => (e.type === "system" && (e as { subtype?: string }).subtype === "notice" ? [String((e as { message?: unknown }).message)] : []));

describe("what checkpoints cost a task", () => {
  it("a five-reply task starts at most 30 git processes, one checkpoint per step that changed files, and no repack", async () => {
    for (let i = 0; i < 20; i++) writeFileSync(file(`file${i}.ts`), `export const v = ${i};\n`);
    const log = path.join(fx.home.dir, "git.log");
    fx.server = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "a.txt", content: "one\n" }),
        call("write_to_file", { path: "b.txt", content: "two\n" }),
        call("read_file", { path: "a.txt" }),
        call("execute_command", { command: "echo three > c.txt", requires_approval: false }),
        done,
      ],
    });
    const result = await run(["--auto-approve", "edit,all-commands", "--json", "five replies"], { PATH: loggingGit(log) });
    expect(result.code, result.stderr).toBe(0);
    expect(checkpointLabels(result.events)).toEqual(["task start", "turn 1: write_to_file", "turn 2: write_to_file", "turn 4: execute_command", "task completed"]);
    expect(read("c.txt")).toBe("three\n");

    const calls = readFileSync(log, "utf8").split("\n").filter((line) => line !== "");
    // The shim really saw the checkpoints' git (a positive control for the count below).
    expect(calls.some((line) => subcommand(line) === "commit-tree")).toBe(true);
    expect(calls.length, calls.join("\n")).toBeLessThanOrEqual(30);
    expect(calls.filter((line) => subcommand(line) === "repack")).toEqual([]);
  }, 120_000);

  it("a task that changes nothing, in a workspace with checkpoints, runs no git on the work tree and adds no checkpoint; the next task's baseline waits for its first change", async () => {
    writeFileSync(file("a.txt"), "a\n");
    fx.server = await startScriptedModelServer({
      turns: [call("write_to_file", { path: "a.txt", content: "b\n" }), done, call("read_file", { path: "a.txt" }), done, call("write_to_file", { path: "a.txt", content: "c\n" }), done],
    });
    const first = await run(["--auto-approve", "edit", "--json", "change a"], {});
    expect(first.code, first.stderr).toBe(0);
    expect(checkpointLabels(first.events)).toEqual(["task start", "turn 1: write_to_file", "task completed"]);

    const log = path.join(fx.home.dir, "git.log");
    const second = await run(["--json", "only read"], { PATH: loggingGit(log) });
    expect(second.code, second.stderr).toBe(0);
    expect(checkpointLabels(second.events)).toEqual([]);
    const calls = readFileSync(log, "utf8").split("\n").filter((line) => line !== "");
    expect(calls.length).toBeGreaterThan(0); // the shim saw the store opened (a positive control)
    expect(calls.filter((line) => ["status", "add", "update-index", "write-tree", "commit-tree", "update-ref"].includes(subcommand(line))), calls.join("\n")).toEqual([]);

    // The person changes the file between tasks; the next task's baseline, made before its write, holds their change.
    writeFileSync(file("a.txt"), "by the person\n");
    const third = await run(["--auto-approve", "edit", "--json", "change a again"], {});
    expect(third.code, third.stderr).toBe(0);
    expect(checkpointLabels(third.events)).toEqual(["task start", "turn 1: write_to_file", "task completed"]);
    const start = third.events.find((e) => e.type === "checkpoint") as unknown as { hash: string };
    const gitDir = path.join(fx.home.dir, "checkpoints", readdirSync(path.join(fx.home.dir, "checkpoints"))[0]!);
    expect(execFileSync("git", ["--git-dir", gitDir, "show", `${start.hash}:a.txt`], { encoding: "utf8" })).toBe("by the person\n");
    expect(read("a.txt")).toBe("c\n");
  }, 120_000);

  it("in a workspace over checkpointsLazyAboveFiles, reads run at once; the first write waits for the baseline, which says it is indexing", async () => {
    for (let d = 0; d < 11; d++) {
      mkdirSync(file(`src${d}`));
      for (let i = 0; i < 100; i++) writeFileSync(file(`src${d}/f${i}.ts`), `export const v${i} = ${i};\n`);
    }
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpointsLazyAboveFiles: 1000 }));
    fx.server = await startScriptedModelServer({
      turns: [call("read_file", { path: "src0/f0.ts" }), call("write_to_file", { path: "src0/f0.ts", content: "changed\n" }), done],
    });
    const result = await run(["--auto-approve", "edit", "--json", "read then write"], {});
    expect(result.code, result.stderr).toBe(0);
    expect(notices(result.events)).toEqual(
      expect.arrayContaining([
        "checkpoints: 1,100 files here, more than checkpointsLazyAboveFiles; the first checkpoint is made before the first change",
        "checkpoints: indexing 1,100 files…",
      ]),
    );
    const order = result.events.flatMap((e) =>
      e.type === "tool_call_update" && "content" in e ? [`result ${String((e as { name?: unknown }).name)}`] : e.type === "checkpoint" ? [`checkpoint ${String((e as { label?: unknown }).label)}`] : [],
    );
    expect(order.slice(0, 3)).toEqual(["result read_file", "checkpoint task start", "result write_to_file"]);
    expect(read("src0/f0.ts")).toBe("changed\n");

    // The baseline holds the file as it was before the write: restoring it undoes the write.
    const id = JSON.parse(readFileSync(path.join(fx.home.dir, "tasks", "index.json"), "utf8"))[0].id as string;
    const restored = await runCairn(["checkpoints", "restore", id, "1", "--workspace"], { env: cleanEnv({ CAIRN_HOME: fx.home.dir }), timeoutMs: 60_000 });
    expect(restored.code, restored.stderr).toBe(0);
    expect(read("src0/f0.ts")).toBe("export const v0 = 0;\n");
  }, 120_000);
});
