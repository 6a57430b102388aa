import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { CommandExecutor } from "./command-executor.js";
import { Terminal } from "./terminal.js";

/**
 * A host's command executor behind the terminal: a real shell in another folder (as a remote
 * checkout would be), whose output the terminal bounds, cleans and logs like a local command's.
 */
let base: string;
let remote: string;
let scratch: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-executor-")));
  remote = path.join(base, "remote");
  scratch = path.join(base, "scratch");
  await mkdir(remote);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const shellIn = (folder: string, seen: Array<{ cwd: string; env: Record<string, string> }> = []): CommandExecutor => ({
  run: (request) =>
    new Promise((resolve, reject) => {
      seen.push({ cwd: request.cwd, env: request.env });
      const child = spawn("/bin/sh", ["-c", request.command], { cwd: folder, env: { PATH: process.env.PATH, ...request.env }, signal: request.signal });
      child.stdout.on("data", (d: Buffer) => request.onOutput(d.toString()));
      child.stderr.on("data", (d: Buffer) => request.onOutput(d.toString()));
      child.on("error", (error) => (request.signal.aborted ? resolve({ exitCode: null, signal: "SIGTERM" }) : reject(error)));
      child.on("close", (code, signal) => resolve({ exitCode: code, signal }));
    }),
});

it("runs the command on the executor, with the task's variables, cleaned output and its exit code", async () => {
  const seen: Array<{ cwd: string; env: Record<string, string> }> = [];
  const terminal = new Terminal({ scratchDir: scratch, env: { CAIRN_TASK_ID: "t1" }, executor: shellIn(remote, seen) });
  const result = await terminal.run({ command: "printf '\\033[31mred\\033[0m\\n'; echo $CAIRN_TASK_ID; touch here; exit 3", cwd: "/workspace" });
  await terminal.dispose();
  expect(result).toMatchObject({ started: true, outcome: { type: "exited", code: 3 }, output: "red\nt1\n" });
  expect(seen).toEqual([{ cwd: "/workspace", env: { CAIRN_TASK_ID: "t1" } }]);
  expect(existsSync(path.join(remote, "here"))).toBe(true);
});

it("long output is cut to its head and tail, with the whole of it in a log the model can read", async () => {
  const terminal = new Terminal({ scratchDir: scratch, executor: shellIn(remote) });
  const result = await terminal.run({ command: "seq 1 200000", cwd: "/workspace" });
  await terminal.dispose();
  if (!result.started) throw new Error(result.message);
  expect(result.output.length).toBeLessThan(100_000);
  expect(result.output).toContain("200000");
  expect(result.logPath).toBeDefined();
  expect(readFileSync(result.logPath!, "utf8").split("\n")[99_999]).toBe("100000");
});

it("an executor that cannot start the command says so in one line; a stopped run is aborted", async () => {
  const failing = new Terminal({ scratchDir: scratch, executor: { run: () => Promise.reject(new Error("the remote host is unreachable\nstack...")) } });
  expect(await failing.run({ command: "true", cwd: "/w" })).toEqual({ started: false, message: "The host could not run the command: the remote host is unreachable" });
  await failing.dispose();

  const terminal = new Terminal({ scratchDir: scratch, executor: shellIn(remote) });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const result = await terminal.run({ command: "sleep 10", cwd: "/w", signal: controller.signal });
  await terminal.dispose();
  expect(result).toMatchObject({ started: true, outcome: { type: "aborted" } });
});
