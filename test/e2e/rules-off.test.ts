import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

// settings.json's rulesOff (what the Settings views switch): a rules file found but switched off is
// listed by cairn rules as "off" and is not in the model's request; the others still are.
const fx = useE2eFixture((fx) => {
  mkdirSync(path.join(fx.workspace.dir, ".clinerules"));
  writeFileSync(path.join(fx.workspace.dir, ".clinerules", "tone.md"), "Answer like a pirate.\n");
  writeFileSync(path.join(fx.workspace.dir, "AGENTS.md"), "Run the linter before finishing.\n");
});

const done: ScriptedTurn = { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "ok" } }] };
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });

describe("rules files switched off", () => {
  it("stay out of the request and show as off in cairn rules; switched on again, they are back", async () => {
    const tone = path.join(fx.workspace.dir, ".clinerules", "tone.md");
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false, rulesOff: [tone] }));
    fx.server = await startScriptedModelServer({ turns: [done, done] });
    const provider = ["--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir];
    const off = await runCairn(["run", ...provider, "first"], { env: env() });
    expect(off.code, off.stderr).toBe(0);
    const first = JSON.stringify(fx.server.requests[0]!.body.system);
    expect(first).toContain("Run the linter before finishing.");
    expect(first).not.toContain("pirate");
    const listed = await runCairn(["rules", "--cwd", fx.workspace.dir], { env: env() });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/off\s+\.clinerules\/tone\.md/);
    expect(listed.stdout).toContain("(1 of 2 files");

    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
    const on = await runCairn(["run", ...provider, "second"], { env: env() });
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.stringify(fx.server.requests[1]!.body.system)).toContain("Answer like a pirate.");
  });
});
