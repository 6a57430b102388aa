import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../support/scripted-model-server.js";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";
import { approvalsAsked } from "../support/tool-call-events.js";

let root: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let server: ScriptedModelServer;
let ws: string;

beforeEach(() => {
  root = tempDir("boundary");
  home = tempDir("home");
  ws = path.join(root.dir, "ws");
  mkdirSync(ws);
  mkdirSync(path.join(root.dir, "outside"));
  writeFileSync(path.join(root.dir, "outside", "secret.txt"), "TOP-SECRET-VALUE\n");
  symlinkSync(path.join(root.dir, "outside"), path.join(ws, "link"));
  writeFileSync(path.join(ws, "inside.txt"), "inside content\n");
});
afterEach(async () => {
  await server.close();
  root.cleanup();
  home.cleanup();
});

const call = (name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, name, input }] });

describe("workspace boundary, headless", () => {
  it("denies reads and writes outside the workspace (.., absolute, symlink) and tells the model", async () => {
    server = await startScriptedModelServer({
      turns: [
        call("read_file", { path: "../outside/secret.txt" }),
        call("read_file", { path: path.join(root.dir, "outside", "secret.txt") }),
        call("read_file", { path: "link/secret.txt" }),
        call("write_to_file", { path: "link/planted.txt", content: "x" }),
        call("read_file", { path: "inside.txt" }),
        call("attempt_completion", { result: "could only read inside.txt" }),
      ],
    });
    const run = await runCairn(
      ["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", ws, "--auto-approve", "read,edit", "--json", "read the secret"],
      { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir }) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain("TOP-SECRET-VALUE");
    for (const request of server.requests) expect(JSON.stringify(request.body)).not.toContain("TOP-SECRET-VALUE");
    expect(existsSync(path.join(root.dir, "outside", "planted.txt"))).toBe(false);

    const requests = approvalsAsked(run.events);
    expect(requests.map((e) => e.category)).toEqual(["read-external", "read-external", "read-external", "edit-external"]);
    const results = run.events.filter((e) => e.type === "tool_call_update" && "content" in e);
    expect(results.map((e) => e.status)).toEqual(["denied", "denied", "denied", "denied", "completed", "completed"]);
    // The model is told it was denied, so it can adapt.
    expect(JSON.stringify(server.requests[1]!.body)).toMatch(/denied/);
    expect(JSON.stringify(server.requests[5]!.body)).toContain("inside content");
    const result = run.events.at(-1)!;
    expect(result.permission_denials).toHaveLength(4);
  });

  it("allows an outside read when read-external is auto-approved", async () => {
    server = await startScriptedModelServer({
      turns: [call("read_file", { path: "link/secret.txt" }), call("attempt_completion", { result: "read it" })],
    });
    const run = await runCairn(
      ["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", ws, "--auto-approve", "read,read-external", "--json", "read the secret"],
      { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir }) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(server.requests[1]!.body)).toContain("TOP-SECRET-VALUE");
  });
});
