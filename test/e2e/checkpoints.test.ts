import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { foldEvent, initialTranscript, type AgentEvent } from "@cairn/core/transcript";
import { beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, startCairn, tempDir } from "../support/cairn-cli.js";

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const cli = (...args: string[]) => runCairn(args, { env: env(), timeoutMs: 60_000 });
const git = (...args: string[]) => execFileSync("git", args, { cwd: fx.workspace.dir, encoding: "utf8" });
const read = (p: string) => readFileSync(path.join(fx.workspace.dir, p), "utf8");
const taskId = () => readdirSync(path.join(fx.home.dir, "tasks")).find((n) => n !== "index.json")!;

describe("checkpoints through the CLI", () => {
  beforeEach(() => {
    // A user's git repository with a commit, an ignored build folder, and a nested repository.
    git("init", "-q");
    git("config", "user.email", "person@example.com");
    git("config", "user.name", "Person");
    writeFileSync(path.join(fx.workspace.dir, "a.txt"), "original a\n");
    writeFileSync(path.join(fx.workspace.dir, "b.txt"), "original b\n");
    writeFileSync(path.join(fx.workspace.dir, ".gitignore"), "build/\n");
    mkdirSync(path.join(fx.workspace.dir, "build"));
    writeFileSync(path.join(fx.workspace.dir, "build", "out.js"), "built 1\n");
    git("add", "-A");
    git("commit", "-qm", "initial");
    mkdirSync(path.join(fx.workspace.dir, "vendor", "lib"), { recursive: true });
    execFileSync("git", ["init", "-q"], { cwd: path.join(fx.workspace.dir, "vendor", "lib") });
    writeFileSync(path.join(fx.workspace.dir, "vendor", "lib", "lib.js"), "lib v1\n");
  });

  it("a checkpoint per step; diff; restore files, conversation, or both; the user's .git and ignored files untouched", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "a.txt", content: "changed a\n" }),
        call("execute_command", { command: "rm b.txt && echo new > c.txt && echo lib v2 > vendor/lib/lib.js && echo built 2 > build/out.js", requires_approval: false }),
        call("attempt_completion", { result: "done" }),
      ],
    });
    const headBefore = git("rev-parse", "HEAD");
    const indexBefore = readFileSync(path.join(fx.workspace.dir, ".git", "index"));
    const run = await cli("run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", "edit,all-commands", "--json", "change things");
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.filter((e) => e.type === "checkpoint").map((e) => e.label)).toEqual(["task start", "turn 1: write_to_file", "turn 2: execute_command", "task completed"]);
    const id = taskId();

    const list = await cli("checkpoints", id);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trim().split("\n")).toHaveLength(4);

    const diff = await cli("checkpoints", "diff", id, "1");
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/modified\s+a\.txt/);
    expect(diff.stdout).toMatch(/deleted\s+b\.txt/);
    expect(diff.stdout).toMatch(/added\s+c\.txt/);
    expect(diff.stdout).toMatch(/modified\s+vendor\/lib\/lib\.js/);
    expect(diff.stdout).not.toContain("build/out.js");
    const between = await cli("checkpoints", "diff", id, "1", "2");
    expect(between.stdout).toMatch(/1 file changed/);

    const bad = await cli("checkpoints", "restore", id, "1");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--workspace.*--task.*--both/);

    const restored = await cli("checkpoints", "restore", id, "1", "--workspace");
    expect(restored.code, restored.stderr).toBe(0);
    expect(read("a.txt")).toBe("original a\n");
    expect(read("b.txt")).toBe("original b\n");
    expect(existsSync(path.join(fx.workspace.dir, "c.txt"))).toBe(false);
    expect(read("vendor/lib/lib.js")).toBe("lib v1\n");
    expect(read("build/out.js")).toBe("built 2\n");
    // The person's repository: same HEAD, same index bytes, nested .git still where it was.
    expect(git("rev-parse", "HEAD")).toBe(headBefore);
    expect(readFileSync(path.join(fx.workspace.dir, ".git", "index")).equals(indexBefore)).toBe(true);
    expect(existsSync(path.join(fx.workspace.dir, "vendor", "lib", ".git"))).toBe(true);
    expect(existsSync(path.join(fx.workspace.dir, "vendor", "lib", ".git_disabled"))).toBe(false);

    const cut = await cli("checkpoints", "restore", id, "2", "--task");
    expect(cut.code, cut.stderr).toBe(0);
    const conversation = readFileSync(path.join(fx.home.dir, "tasks", id, "conversation.jsonl"), "utf8").trim().split("\n");
    expect(conversation).toHaveLength(3);
    expect(JSON.parse((await cli("show", id, "--json")).stdout)).toMatchObject({ status: "aborted" });

    const both = await cli("checkpoints", "restore", id, "2", "--both");
    expect(both.code, both.stderr).toBe(0);
    expect(read("a.txt")).toBe("changed a\n");
    expect(read("b.txt")).toBe("original b\n");
    // Each restore is in the task's journal, so a host opening the task shows it where it happened.
    const events = readFileSync(path.join(fx.home.dir, "tasks", id, "events.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as AgentEvent);
    const shown = events.reduce(foldEvent, initialTranscript()).items.filter((item) => item.kind === "restored");
    expect(shown.map((item) => item.kind === "restored" && [item.what, item.message_index])).toEqual([["files", 7], ["conversation", 3], ["both", 3]]);
  }, 60_000);

  it("works in a workspace that is not a git repository", async () => {
    const plain = tempDir("plain");
    try {
      writeFileSync(path.join(plain.dir, "x.txt"), "x1\n");
      fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "x.txt", content: "x2\n" }), call("attempt_completion", { result: "ok" })] });
      const run = await cli("run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", plain.dir, "--auto-approve", "edit", "edit x");
      expect(run.code, run.stderr).toBe(0);
      const restored = await cli("checkpoints", "restore", taskId(), "1", "--workspace");
      expect(restored.code, restored.stderr).toBe(0);
      expect(readFileSync(path.join(plain.dir, "x.txt"), "utf8")).toBe("x1\n");
      expect(existsSync(path.join(plain.dir, ".git"))).toBe(false);
    } finally {
      plain.cleanup();
    }
  });

  it("files changed outside the agent between steps are reported to the model once, and recorded as a checkpoint", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        { ...call("read_file", { path: "a.txt" }), delayMs: 1_000 },
        call("read_file", { path: "a.txt" }),
        call("attempt_completion", { result: "ok" }),
      ],
    });
    const cairn = startCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", "watch a"], { env: env() });
    // Once the task's first checkpoint exists, and while the model is "thinking", the person edits a file.
    await cairn.waitForLine((line) => line.includes('"type":"checkpoint"'));
    writeFileSync(path.join(fx.workspace.dir, "b.txt"), "edited by the person\n");
    expect(await cairn.exited, cairn.output().stderr).toBe(0);
    expect(JSON.stringify(fx.server.requests[1]!.body)).toMatch(/Files changed outside your tools.*modified: b\.txt/);
    expect(JSON.stringify(fx.server.requests[2]!.body.messages.at(-1))).not.toContain("Files changed outside your tools");
    expect(cairn.output().stdout).toContain('"label":"changes outside the agent"');
  }, 60_000);
});
