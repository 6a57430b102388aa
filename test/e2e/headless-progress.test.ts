import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCairn, startCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer } from "../support/scripted-model-server.js";

/** What a person watching a headless run sees on stderr while it works. */

const fx = useE2eFixture();
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const args = (...rest: string[]) => ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, ...rest];
const complete = (result: string) => ({ content: [{ type: "tool_use" as const, name: "attempt_completion", input: { result } }] });

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("headless progress on stderr", () => {
  it("shows a long command's output lines while it runs, then its exit code", { timeout: 60_000 }, async () => {
    // The command prints, then waits for the test to let it go on: its first lines must be on stderr
    // while it is still running, whatever the machine's speed.
    const command = 'echo "first line"; printf "second line\\n"; while [ ! -f go ]; do sleep 0.1; done; for i in 1 2 3; do echo "tick $i"; sleep 0.3; done; exit 4';
    fx.server = await startScriptedModelServer({
      turns: [{ content: [{ type: "tool_use", name: "execute_command", input: { command, requires_approval: false } }] }, complete("Ran the long command")],
    });
    const run = startCairn(args("--auto-approve", "all-commands", "run the long command"), { env: env() });
    const stderr = () => run.output().stderr;
    await until(() => stderr().includes("│ second line"), "the command's first lines on stderr");
    expect(stderr()).toContain("│ first line");
    expect(stderr()).not.toContain("exit code");
    writeFileSync(path.join(fx.workspace.dir, "go"), "");
    expect(await run.exited).toBe(0);

    const err = stderr();
    const order = ["│ first line", "│ second line", "│ tick 1", "│ tick 2", "│ tick 3", "✗ exit code 4", "✓ completed"].map((text) => err.indexOf(text));
    expect(order.every((at) => at !== -1), err).toBe(true);
    expect(order, err).toEqual([...order].sort((a, b) => a - b));
    expect(run.output().stdout).toBe("Ran the long command\n");
  });

  it('says "[the response above was discarded]" only when part of that response was shown', { timeout: 60_000 }, async () => {
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 20, maxDelayMs: 200 } }));
    const partial = "I am looking at the files before I change anything in them. ".repeat(3);
    fx.server = await startScriptedModelServer({
      turns: [{ fault: { status: 500 } }, { content: [{ type: "text", text: partial }, ...complete("never seen").content], cutAfterChars: 40 }, complete("Done after two retries")],
    });
    const run = await runCairn(args("go"), { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.match(/model request failed/g)).toHaveLength(2);
    // The 500 showed nothing, so nothing is disowned; the cut stream had shown its first words.
    expect(run.stderr.match(/\[the response above was discarded/g)).toHaveLength(1);
    expect(run.stderr).toMatch(/I am looking at[^\n]*\n\[the response above was discarded/);
  });
});
