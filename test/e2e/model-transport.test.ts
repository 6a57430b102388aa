import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, repoRoot, runCairn, tempDir } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer } from "../support/scripted-model-server.js";

/**
 * Issue 26: a model request never loads Node's bundled undici (the global fetch, Response and
 * Headers load it, ~28 ms of CPU a process). Cairn's requests go over node:http (core's
 * model/http-fetch.ts) and the bundle keeps the AI SDK's header helpers off the global Headers.
 * Counted, not timed: each run records the Node internals every process of it loaded.
 */
const probe = path.join(repoRoot, "test/support/node-internals/record.mjs");

/** Every Node internal each process loaded, by process, from the probe's folder. */
function internalsIn(folder: string): string[][] {
  return readdirSync(folder).map((file) => readFileSync(path.join(folder, file), "utf8").split("\n").filter((line) => line !== ""));
}

const fixture = useE2eFixture();

describe("a one-turn task's model request", () => {
  it.each([
    ["anthropic", "ANTHROPIC_API_KEY", ""],
    ["openai-compatible", "CAIRN_API_KEY", "/v1"],
    ["openai", "OPENAI_API_KEY", "/v1"],
  ] as const)("on %s goes over node:http and never loads undici", async (provider, keyVariable, suffix) => {
    fixture.server = await startScriptedModelServer({
      turns: [{ content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Done at once." } }] }],
    });
    const out = tempDir("internals");
    try {
      const run = await runCairn(
        ["run", "--provider", provider, "--model", "scripted-model", "--base-url", `${fixture.server.url}${suffix}`, "--cwd", fixture.workspace.dir, "--json", "Say you are done."],
        {
          env: cleanEnv({ CAIRN_HOME: fixture.home.dir, NODE_OPTIONS: `--import=${probe}`, CAIRN_NODE_INTERNALS: out.dir, [keyVariable]: "k" }),
          cwd: fixture.workspace.dir,
        },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "Done at once." });
      expect(fixture.server.requests).toHaveLength(1);
      const processes = internalsIn(out.dir);
      // The positive control: the probe saw the process that sent the request, over node:http.
      expect(processes.some((loaded) => loaded.includes("NativeModule _http_client"))).toBe(true);
      expect(processes.flat().filter((line) => line.includes("undici"))).toEqual([]);
    } finally {
      out.cleanup();
    }
  });

  it("neither does a task that reads, writes and runs a command between its four requests", async () => {
    writeFileSync(path.join(fixture.workspace.dir, "a.txt"), "hello\n");
    fixture.server = await startScriptedModelServer({
      turns: [
        { content: [{ type: "tool_use", name: "read_file", input: { path: "a.txt" } }] },
        { content: [{ type: "tool_use", name: "write_to_file", input: { path: "b.txt", content: "written\n" } }] },
        { content: [{ type: "tool_use", name: "execute_command", input: { command: "echo ok", requires_approval: false } }] },
        { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "All done." } }] },
      ],
    });
    const out = tempDir("internals");
    try {
      const run = await runCairn(["run", "--yolo", "--provider", "anthropic", "--base-url", fixture.server.url, "--cwd", fixture.workspace.dir, "--json", "Do the four steps."], {
        env: cleanEnv({ CAIRN_HOME: fixture.home.dir, NODE_OPTIONS: `--import=${probe}`, CAIRN_NODE_INTERNALS: out.dir, ANTHROPIC_API_KEY: "k" }),
        cwd: fixture.workspace.dir,
        timeoutMs: 60_000,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "All done." });
      expect(fixture.server.requests).toHaveLength(4);
      expect(readFileSync(path.join(fixture.workspace.dir, "b.txt"), "utf8")).toBe("written\n");
      expect(JSON.stringify(fixture.server.requests[3]!.body)).toContain("ok");
      const processes = internalsIn(out.dir);
      expect(processes.some((loaded) => loaded.includes("NativeModule _http_client"))).toBe(true);
      expect(processes.flat().filter((line) => line.includes("undici"))).toEqual([]);
    } finally {
      out.cleanup();
    }
  });

  it("the probe sees undici where something does touch the global Headers", () => {
    const out = tempDir("internals");
    try {
      const child = spawnSync(process.execPath, [`--import=${probe}`, "-e", "new Headers()"], { env: cleanEnv({ CAIRN_NODE_INTERNALS: out.dir }) });
      expect(child.status).toBe(0);
      expect(internalsIn(out.dir).flat()).toContain("NativeModule internal/deps/undici/undici");
    } finally {
      out.cleanup();
    }
  });
});
