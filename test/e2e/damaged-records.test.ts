import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

const fx = useE2eFixture();

const noStack = (text: string) => expect(text.match(/\n\s+at .*/)?.[0], "no stack trace").toBeUndefined();

describe("a task whose metadata.json is damaged", () => {
  it.each([
    ["not JSON", '{"id": "20261124-0000dead", "task": garbage'],
    ["JSON without the fields", '{"id": "20261124-0000dead"}'],
    ["fields of the wrong kind", JSON.stringify({ id: "20261124-0000dead", title: 5, usage: "lots" })],
  ])("(%s): show, resume and checkpoints say so in one line; history skips it and the others still list; delete removes it", async (_kind, text) => {
    fx.server = await startScriptedModelServer({ turns: [{ content: [{ type: "tool_use", name: "attempt_completion", input: { result: "done" } }] }] });
    const env = cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
    const good = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "a healthy task"], { env });
    expect(good.code, good.stderr).toBe(0);
    const dir = path.join(fx.home.dir, "tasks", "20261124-0000dead");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "metadata.json"), text);

    for (const args of [["show", "20261124-0000dead"], ["resume", "20261124-0000dead", "go on"], ["checkpoints", "20261124-0000dead"]]) {
      const run = await runCairn(args, { env });
      expect(run.code, args.join(" ")).toBe(2);
      noStack(run.stderr);
      const lines = run.stderr.trimEnd().split("\n");
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toContain(path.join(dir, "metadata.json"));
      expect(lines[0]).toContain("damaged");
      expect(lines[0]).toContain("cairn delete 20261124-0000dead");
    }
    const history = await runCairn(["history", "--all"], { env });
    expect(history.code).toBe(0);
    expect(history.stdout).toContain("a healthy task");
    expect(history.stderr).toContain("Skipped task 20261124-0000dead");

    const deleted = await runCairn(["delete", "20261124-0000dead"], { env });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(existsSync(dir)).toBe(false);
    const after = await runCairn(["history", "--all"], { env });
    expect(after.stderr).toBe("");
    expect(after.stdout).toContain("a healthy task");
  });

  it("a damaged history index is rebuilt from the task folders", async () => {
    fx.server = await startScriptedModelServer({ turns: [{ content: [{ type: "tool_use", name: "attempt_completion", input: { result: "done" } }] }] });
    const env = cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
    await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "a healthy task"], { env });
    const index = path.join(fx.home.dir, "tasks", "index.json");
    writeFileSync(index, JSON.stringify([{ id: 7, title: null }]));
    const history = await runCairn(["history", "--all"], { env });
    expect(history.code, history.stderr).toBe(0);
    noStack(history.stderr);
    expect(history.stdout).toContain("a healthy task");
    expect(readFileSync(index, "utf8")).toContain("a healthy task");
  });
});
