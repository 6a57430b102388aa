import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { cairnBin, cleanEnv, repoRoot, tempDir } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

/**
 * acpx, a real ACP client from npm, drives `cairn acp` through its documented persistent-session
 * flow: `sessions new`, then prompts from separate acpx processes, each of which loads the session
 * (session/load) in an agent process of its own.
 */
const fx = useE2eFixture();
const acpxCli = path.join(repoRoot, "node_modules/acpx/dist/cli.js");

/** A provider that names every tool call `call_0`, as Fireworks, Azure OpenAI and local servers do. */
const callZero = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", id: "call_0", name, input }] });

/** One acpx command, as a person or a script would type it; resolves with what it printed. */
function acpx(args: string[], home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const agent = `${process.execPath} ${cairnBin} acp --provider anthropic --base-url ${fx.server.url}`;
  // --ttl: acpx keeps the agent alive between prompts (300 s by default) for the next one; a short
  // one lets it go after each prompt, so every prompt below runs in an agent process of its own.
  const child = spawn(process.execPath, [acpxCli, "--agent", agent, "--cwd", fx.workspace.dir, "--ttl", "0.05", "--approve-all", ...args], {
    cwd: fx.workspace.dir,
    env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir, HOME: home }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** acpx's queue owner (and with it the agent) is gone once its lock is: the next prompt starts a new agent. */
async function ownerGone(home: string): Promise<void> {
  const queues = path.join(home, ".acpx", "queues");
  for (let waited = 0; existsSync(queues) && readdirSync(queues).some((f) => f.endsWith(".lock")); waited += 50) {
    if (waited > 60_000) throw new Error(`acpx's queue owner did not exit: ${readdirSync(queues).join(", ")}`);
    await sleep(50);
  }
}

type Wire = { id?: number; method?: string; params?: any; result?: any; error?: { message: string } };

/** Every ACP message acpx exchanged in the session, as its journal recorded them. */
function wire(home: string, recordId: string): Wire[] {
  const file = path.join(home, ".acpx", "sessions", `${recordId}.stream.ndjson`);
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Wire)
    .filter((m) => "jsonrpc" in m);
}

describe("acpx drives cairn acp through its persistent-session flow", () => {
  it("sessions new, then two prompts from separate acpx processes: both files on disk, the second carries the first's conversation on, every tool call its own id", async () => {
    // acpx keeps its sessions under ~/.acpx: a home of the test's own.
    const acpxHome = tempDir("acpx");
    const home = acpxHome.dir;
    try {
      fx.server = await startScriptedModelServer({
        turns: [
          callZero("write_to_file", { path: "one.txt", content: "one\n" }),
          callZero("attempt_completion", { result: "wrote one" }),
          callZero("write_to_file", { path: "two.txt", content: "two\n" }),
          callZero("attempt_completion", { result: "wrote two" }),
        ],
      });
      const created = await acpx(["sessions", "new"], home);
      expect(created.code, created.stderr).toBe(0);
      const recordId = created.stdout.trim().split("\n").at(-1)!;

      const first = await acpx(["write one.txt"], home);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain("wrote one");
      await ownerGone(home);
      const second = await acpx(["now write two.txt"], home);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toContain("wrote two");
      // Nothing of acpx or Cairn outlives the test (their folders go next).
      await ownerGone(home);

      expect(readFileSync(path.join(fx.workspace.dir, "one.txt"), "utf8")).toBe("one\n");
      expect(readFileSync(path.join(fx.workspace.dir, "two.txt"), "utf8")).toBe("two\n");

      const messages = wire(home, recordId);
      // The session `sessions new` made (acpx names its record after it) is the one each prompt's
      // process loaded; none fell back to a new one.
      expect(messages.filter((m) => m.method === "session/new")).toEqual([]);
      const loads = messages.flatMap((m, i) => (m.method === "session/load" ? [i] : []));
      expect(loads.map((i) => messages[i]!.params.sessionId)).toEqual([recordId, recordId]);
      for (const i of loads) {
        const answer = messages.slice(i + 1).find((m) => m.id === messages[i]!.id && m.method === undefined);
        expect(answer?.error?.message).toBeUndefined();
      }
      const record = JSON.parse(readFileSync(path.join(home, ".acpx", "sessions", `${recordId}.json`), "utf8"));
      expect(record.acp_session_id).toBe(recordId);
      // The model got the first prompt's conversation with the second prompt.
      const lastRequest = JSON.stringify(fx.server.requests[2]!.body);
      expect(lastRequest).toContain("write one.txt");
      expect(lastRequest).toContain("now write two.txt");

      // Every card its own id, though the provider said call_0 each time; the replay on load shows
      // the first write under the id it had live.
      const cards = messages.filter((m) => m.method === "session/update" && m.params.update.sessionUpdate === "tool_call").map((m) => m.params.update);
      const titles = new Map<string, string>();
      for (const card of cards) {
        expect(titles.get(card.toolCallId) ?? card.title).toBe(card.title);
        titles.set(card.toolCallId, card.title);
      }
      expect([...titles.values()].sort()).toEqual(["write one.txt", "write two.txt"]);
    } finally {
      acpxHome.cleanup();
    }
  }, 120_000);
});
