import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

const fx = useE2eFixture();

/** Whether this machine lets the tests mount a small tmpfs (root, or a container that allows it). */
function canMountTmpfs(): boolean {
  const probe = mkdtempSync(path.join(os.tmpdir(), "cairn-mount-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { stdio: "ignore" });
    execFileSync("umount", [probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmdirSync(probe);
  }
}
const mountable = canMountTmpfs();

let mounted: string | undefined;
afterEach(() => {
  if (mounted) execFileSync("umount", ["-l", mounted]);
  mounted = undefined;
});

const call = (name: string, input: Record<string, unknown>, text = ""): ScriptedTurn => ({
  content: [...(text ? [{ type: "text" as const, text }] : []), { type: "tool_use" as const, name, input }],
});

describe("CAIRN_HOME runs out of space", () => {
  // Skipped only where the machine does not allow mounting a tmpfs (not root); CI runs it.
  it.skipIf(!mountable)("ends the run with one line naming the file, keeps what was written, and resumes once space is back", async () => {
    const home = path.join(fx.home.dir, "small");
    execFileSync("mkdir", [home]);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", home]);
    mounted = home;
    writeFileSync(path.join(home, "settings.json"), JSON.stringify({ checkpoints: false }));
    for (let i = 1; i <= 40; i++) writeFileSync(path.join(fx.workspace.dir, `notes${i}.txt`), `notes ${i}\n`);
    // Each reply carries ~60 KB of prose, so the journal fills the 512 KB CAIRN_HOME within a few turns.
    const prose = (n: number) => `FIRST-TURN-MARKER ${n} ${"lorem ipsum dolor sit amet ".repeat(2_200)}`;
    let turn = 0;
    fx.server = await startScriptedModelServer({
      responder: (request) => {
        turn++;
        const body = JSON.stringify(request.body);
        if (body.includes("carry on please")) return call("attempt_completion", { result: "finished after resume" });
        return call("read_file", { path: `notes${turn}.txt` }, prose(turn));
      },
    });
    const env = cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home });
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--max-turns", "40", "read the notes again and again"], {
      env,
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr.match(/\n\s+at .*/)?.[0], "no stack trace").toBeUndefined();
    const failure = run.stderr.split("\n").filter((l) => l.includes("no space left"));
    expect(failure.length, run.stderr.slice(-1500)).toBeGreaterThanOrEqual(1);
    expect(failure[0]).toContain(home);
    expect(failure[0]).toContain("ENOSPC");
    expect(turn).toBeLessThan(40);

    // Space comes back: the task resumes from what was journaled.
    execFileSync("mount", ["-o", "remount,size=64m", home]);
    const [id] = readdirSync(path.join(home, "tasks")).filter((name) => name !== "index.json");
    expect(id).toBeDefined();
    const resumed = await runCairn(["resume", id!, "carry on please", "--provider", "anthropic", "--base-url", fx.server.url, "--json"], { env, timeoutMs: 60_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.events.at(-1)).toMatchObject({ subtype: "success", result: "finished after resume" });
    const last = JSON.stringify(fx.server.requests.at(-1)!.body);
    expect(last).toContain("FIRST-TURN-MARKER 1 ");
    expect(last).toContain("read the notes again and again");
    expect(readFileSync(path.join(home, "tasks", id!, "metadata.json"), "utf8")).toContain('"completed"');
  }, 120_000);
});
