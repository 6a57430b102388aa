import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = (extra: Record<string, string> = {}) => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir, ...extra });
const run = (...args: string[]) => runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, ...args], { env: env() });
type Notice = { type: string; subtype?: string; level?: string; message?: string };

describe("the workspace's .cairn/settings.json", () => {
  it("is ignored with a notice (stderr and --json) until trusted, then applies; flags still win over it", { timeout: 120_000 }, async () => {
    fx.server = await startScriptedModelServer({ responder: (_request, index) => (index % 2 === 0 ? call("list_files", { path: "." }) : call("attempt_completion", { result: "done" })) });
    const file = path.join(fx.workspace.dir, ".cairn", "settings.json");
    mkdirSync(path.dirname(file));
    writeFileSync(file, JSON.stringify({ maxTurns: 1 }));

    const untrusted = await run("--json", "look around");
    const notice = `ignoring settings in ${file} (this workspace's config is not trusted; run \`cairn trust --cwd ${fx.workspace.dir}\` to review and use it)`;
    expect(untrusted.code, untrusted.stderr).toBe(0); // two turns: maxTurns 1 did not apply
    expect(untrusted.stderr).toContain(`cairn: ${notice}\n`);
    const events = untrusted.stdout.trim().split("\n").map((line) => JSON.parse(line) as Notice);
    expect(events).toContainEqual({ type: "system", subtype: "notice", level: "warning", message: notice });

    const trusted = await runCairn(["trust", "--cwd", fx.workspace.dir], { env: env() });
    expect(trusted.code, trusted.stderr).toBe(0);
    const limited = await run("--json", "look around");
    expect(limited.code).toBe(1);
    expect(limited.stderr).not.toContain("ignoring settings");
    expect(JSON.parse(limited.stdout.trim().split("\n").at(-1)!)).toMatchObject({ type: "result", subtype: "error_max_turns" });

    const flagWins = await run("--max-turns", "5", "look around");
    expect(flagWins.code, flagWins.stderr).toBe(0);
  });
});
