import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";
import { conversationRouter } from "../support/conversation-router.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { TuiTerminal } from "../support/tui-terminal.js";
import { useTuiFixture } from "../support/tui-fixture.js";

/**
 * The interactive `cairn`'s pick list of tasks, in a real terminal (tmux): this workspace's tasks
 * only, a task's sub-agents under it, what each finished task cost, and a reopened task's
 * status line showing how full its context really is.
 */

let other: ReturnType<typeof tempDir>;

const fx = useTuiFixture("history-tui", (fx) => {
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
});
beforeEach(() => {
  other = tempDir("history-tui-other");
});
afterEach(() => other.cleanup());

const call = (name: string, input: Record<string, unknown>, input_tokens = 1000): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], usage: { input_tokens, output_tokens: 100 } });
const env = () => cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" });
const provider = () => ["--provider", "anthropic", "--base-url", fx.server!.url];

describe("the pick list of tasks in the terminal", () => {
  it("shows this workspace's tasks with their sub-agents under them and their cost; a task reopened shows its real context fill", { timeout: 120_000 }, async () => {
    const router = conversationRouter({
      // The last request of the task sent 42,000 tokens: that is how full its context is.
      "WITH-HELPERS": [call("use_subagents", { prompts: ["HELPER-ONE: look around"] }), call("attempt_completion", { result: "helped" }, 42_000), call("attempt_completion", { result: "Carried on" })],
      "HELPER-ONE": [call("attempt_completion", { result: "one" })],
      "ELSEWHERE": [call("attempt_completion", { result: "far away" })],
    });
    fx.server = await startScriptedModelServer({ responder: router.responder });
    for (const [cwd, task] of [
      [fx.workspace.dir, "WITH-HELPERS: research"],
      [other.dir, "ELSEWHERE: a task in another folder"],
    ]) {
      const done = await runCairn(["run", ...provider(), "--cwd", cwd!, "--auto-approve", "read", task!], { env: env() });
      expect(done.code, done.stderr).toBe(0);
    }

    const t = (fx.terminal = new TuiTerminal(env(), fx.home.dir, fx.workspace.dir));
    t.launch(provider());
    const picker = await t.waitFor(/↳ sub-agent: HELPER-ONE.*\n/);
    // This workspace's task, then its sub-agent under it, each with its status and cost; not the other folder's.
    expect(picker).not.toContain("ELSEWHERE");
    expect(picker).toMatch(/WITH-HELPERS: research\s+completed · .* · 2 turns · \$\d+\.\d+\n/);
    expect(picker).toMatch(/↳ sub-agent: HELPER-ONE: look around\s+completed · .* · 1 turn · \$\d+\.\d+\n/);
    expect(picker.indexOf("WITH-HELPERS: research")).toBeLessThan(picker.indexOf("↳ sub-agent: HELPER-ONE"));

    await t.press("Down", "Enter");
    const resumed = await t.waitFor(/Resumed task \S+ \(completed\)/);
    // The status line counts what the last request sent (42,000 + its output), not 0.
    expect(resumed).toMatch(/42k\/200k tokens/);
    await t.press("Enter");
    await t.waitFor("✓ Carried on");

    // /history lists the same, and "/history all" every workspace's, naming the other folder.
    await t.type("/history all");
    await t.press("Enter");
    const all = await t.waitFor("Pick a task to resume (all workspaces)");
    expect(all.slice(all.lastIndexOf("Pick a task to resume"))).toContain("ELSEWHERE");
    expect(all.slice(all.lastIndexOf("Pick a task to resume"))).toContain(other.dir.slice(0, 20));
    await t.press("Escape");
  });
});
