import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import type { AgentEvent } from "../events/index.js";
import { SessionRunner } from "./session-runner.js";

let root: string;
let home: string;
let cwd: string;
let server: ScriptedModelServer | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-runner-")));
  home = path.join(root, "home");
  cwd = path.join(root, "ws");
  mkdirSync(home);
  mkdirSync(cwd);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const env = () => ({ PATH: process.env.PATH, HOME: root, ANTHROPIC_API_KEY: "k", CAIRN_PROVIDER: "anthropic", CAIRN_BASE_URL: server!.url });
const common = () => ({ home, env: env(), overrides: { autoApprove: ["read" as const, "edit" as const] } });

describe("SessionRunner", () => {
  it("a fresh runner opens its task on the first message, runs it to its result and ends it on close", async () => {
    server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "a.txt", content: "A\n" }), call("attempt_completion", { result: "Wrote a.txt" })] });
    const runner = SessionRunner.fresh({ cwd, ...common() });
    const events: AgentEvent[] = [];
    runner.subscribe((e) => events.push(e));
    expect(runner.id).toBeUndefined();
    const result = await runner.send("Write a.txt");
    await runner.close();

    expect(result).toMatchObject({ subtype: "success", result: "Wrote a.txt" });
    expect(readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("A\n");
    const types = events.map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(["session_opened", "user_message", "system"]);
    expect(events[1]).toEqual({ type: "user_message", text: "Write a.txt" });
    expect(types.at(-1)).toBe("result");
    expect(runner.session!.store.metadata().status).toBe("completed");
    // What subscribers got is what the task's record keeps (deltas aside).
    const journaled = runner.session!.store.loadEvents().map((e) => e.type);
    expect(journaled.slice(0, 2)).toEqual(["session_opened", "user_message"]);
  });
});
