import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cairnBin, cleanEnv } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

/**
 * The person's side of trust, in a real terminal (tmux): the interactive session asks once whether
 * to trust a workspace's hooks before anything runs them, and a protected file is changed only
 * when the person says yes to that one edit, with no "always" on offer.
 */
const fx = useE2eFixture();
import { endTmuxServer } from "../support/tmux-end.js";

const TMUX = "/usr/bin/tmux";
const socket = `cairn-trust-${process.pid}`;
const tmux = (...args: string[]) => execFileSync(TMUX, ["-L", socket, ...args], { encoding: "utf8" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const at = (...parts: string[]) => path.join(fx.workspace.dir, ...parts);
const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

afterEach(async () => {
  await endTmuxServer(tmux); // cairn saves the task as it leaves; let it finish before the folders go
});

function launch(task: string): void {
  const env = cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" });
  const script = path.join(fx.home.dir, "launch.sh");
  const exports = Object.entries(env).map(([k, v]) => `export ${k}='${v.replaceAll("'", "'\\''")}'`).join("\n");
  writeFileSync(script, `${exports}\ncd '${fx.workspace.dir}'\n'${process.execPath}' '${cairnBin}' --provider anthropic --base-url '${fx.server.url}' '${task}'\nsleep 600\n`);
  tmux("new-session", "-d", "-s", "main", "-x", "110", "-y", "45", `sh '${script}'`);
  tmux("set-option", "-s", "escape-time", "0");
}

async function waitFor(expected: string, timeoutMs = 20_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const screen = tmux("capture-pane", "-p", "-t", "main", "-S", "-200");
    if (screen.includes(expected)) return screen;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${expected} on the screen:\n${screen}`);
    await sleep(100);
  }
}

async function press(key: string): Promise<void> {
  tmux("send-keys", "-t", "main", key);
  await sleep(80);
}

function shipHook(): void {
  mkdirSync(at(".cairn"), { recursive: true });
  writeFileSync(at(".cairn", "settings.json"), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: `touch ${at("hook-ran")}` }] }] } }));
  writeFileSync(at(".cairnignore"), ".env\n");
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
}

describe("trust and protected files in the interactive session", () => {
  it("asks before running a workspace's hooks; 'Not now' keeps them off and a denied protected edit changes nothing", { timeout: 60_000 }, async () => {
    shipHook();
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: ".cairnignore", content: "" }), call("attempt_completion", { result: "All tidied up" })] });
    launch("tidy up");
    const asked = await waitFor("Trust this workspace's config?");
    expect(asked).toContain(`SessionStart: touch ${at("hook-ran")}`);
    await press("Down");
    await press("Enter");
    const prompt = await waitFor("Protected file .cairnignore");
    expect(prompt).not.toContain("for the rest of this task");
    expect(existsSync(at("hook-ran"))).toBe(false);
    await press("n");
    await waitFor("All tidied up");
    expect(readFileSync(at(".cairnignore"), "utf8")).toBe(".env\n");
    expect(existsSync(at("hook-ran"))).toBe(false);
    expect(existsSync(path.join(fx.home.dir, "trust.json"))).toBe(false);
  });

  it("'Trust it' runs the hooks, and the person's yes changes a protected file (positive control)", { timeout: 60_000 }, async () => {
    shipHook();
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: ".cairnignore", content: ".env\nsecrets/\n" }), call("attempt_completion", { result: "All tidied up" })] });
    launch("tidy up");
    await waitFor("Trust this workspace's config?");
    await press("Enter");
    await waitFor("Protected file .cairnignore");
    expect(existsSync(at("hook-ran"))).toBe(true);
    await press("y");
    await waitFor("All tidied up");
    expect(readFileSync(at(".cairnignore"), "utf8")).toBe(".env\nsecrets/\n");
    expect(readFileSync(path.join(fx.home.dir, "trust.json"), "utf8")).toContain(at(".cairn", "settings.json"));
  });
});
