import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

/**
 * The adversarial review's holes in the OS sandbox, through the real CLI on real bubblewrap. The
 * model's commands are the attacker and are approved (all-commands), so only the sandbox can stop
 * them; each attack shows its effect did not happen, and a control shows the same action works
 * where it is allowed (--sandbox off, or the person's setting).
 */
const fx = useE2eFixture((fx) => {
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
});

/** Outside the workspace and outside /tmp (which the sandbox replaces with a private one). */
let outside: string;
beforeEach(() => {
  outside = mkdtempSync("/var/tmp/cairn-attack-sandbox-");
});
afterEach(() => rmSync(outside, { recursive: true, force: true }));

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const sh = (command: string) => call("execute_command", { command, requires_approval: false });
const done = call("attempt_completion", { result: "done" });
const ws = (...parts: string[]) => path.join(fx.workspace.dir, ...parts);

type RunOptions = { env?: Record<string, string>; args?: string[] };
async function run(turns: ScriptedTurn[], options: RunOptions = {}) {
  fx.server = await startScriptedModelServer({ turns });
  const result = await runCairn(
    ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", "--auto-approve", "all-commands,read,edit", ...(options.args ?? []), "go"],
    { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir, ...options.env }), timeoutMs: 60_000 },
  );
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** What the model was told after its call in turn `i` (0-based). */
const toldAfter = (i: number) => JSON.stringify((fx.server.requests[i + 1]!.body as { messages: unknown[] }).messages.at(-1));
const everyRequest = () => fx.server.requests.map((r) => JSON.stringify(r.body)).join("\n");

/** Every file under CAIRN_HOME (the task's journal, conversation and command logs), as one text. */
function homeText(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else texts.push(readFileSync(full, "latin1"));
    }
  };
  walk(fx.home.dir);
  return texts.join("\n");
}

function expectNowhere(secret: string, result: { stdout: string }): void {
  expect(result.stdout, secret).not.toContain(secret);
  expect(everyRequest(), secret).not.toContain(secret);
  expect(homeText(), secret).not.toContain(secret);
}

const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: fx.workspace.dir, encoding: "utf8" });

/** Every file under a folder with its content, to compare before and after. */
function tree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else files[path.relative(dir, full)] = readFileSync(full, "latin1");
    }
  };
  walk(dir);
  return files;
}

describe("/proc/sys", () => {
  it("as root, a kernel setting reads but cannot be written (the current value written back); without the sandbox the write goes through", async () => {
    expect(process.getuid?.(), "this attack needs root, as on CI and in containers").toBe(0);
    const current = readFileSync("/proc/sys/vm/stat_interval", "utf8").trim();
    const write = `v=$(cat /proc/sys/vm/stat_interval); echo "read:$v"; echo "$v" > /proc/sys/vm/stat_interval && echo WROTE''-SYSCTL`;
    const corePattern = `v=$(cat /proc/sys/kernel/core_pattern); printf '%s\\n' "$v" > /proc/sys/kernel/core_pattern && echo WROTE''-CORE-PATTERN; echo t > /proc/sysrq-trigger 2>/dev/null && echo WROTE''-SYSRQ; mount -o remount,rw /proc/sys 2>/dev/null && echo RE''MOUNTED`;
    await run([sh(write), sh(corePattern), done]);
    expect(toldAfter(0)).toContain(`read:${current}`);
    expect(toldAfter(0)).toMatch(/Read-only file system/);
    expect(toldAfter(0)).not.toContain("WROTE-SYSCTL");
    expect(toldAfter(1)).not.toMatch(/WROTE-CORE-PATTERN|WROTE-SYSRQ|REMOUNTED/);
    expect(readFileSync("/proc/sys/vm/stat_interval", "utf8").trim()).toBe(current);

    await run([sh(write), done], { args: ["--sandbox", "off"] });
    expect(toldAfter(0)).toContain("WROTE-SYSCTL");
    expect(readFileSync("/proc/sys/vm/stat_interval", "utf8").trim()).toBe(current);
  }, 90_000);
});

