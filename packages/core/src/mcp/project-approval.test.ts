import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { globalConfigFile, projectConfigFile } from "./config.js";
import { McpHub } from "./hub.js";
import { trustDigest } from "../trust/trust-store.js";
import { approvalsFile, configHash, projectFileDigest, revokeProjectApprovals } from "./project-approval.js";
import { serverEntry } from "./test-servers.js";

let home: string;
let ws: string;
let other: string;
let hubs: McpHub[] = [];

const memoryEntry = () => ({ command: process.execPath, args: [serverEntry.memory()], env: { MEMORY_FILE_PATH: path.join(home, "graph.jsonl") } });

beforeEach(async () => {
  home = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-home-")));
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-ws-")));
  other = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-other-")));
  await writeFile(projectConfigFile(ws), JSON.stringify({ mcpServers: { mem: memoryEntry() } }));
});

afterEach(async () => {
  await Promise.all(hubs.map((h) => h.close()));
  hubs = [];
  for (const dir of [home, ws, other]) await rm(dir, { recursive: true, force: true });
});

function load(cwd = ws): McpHub {
  const hub = McpHub.load({ home, cwd });
  hubs.push(hub);
  return hub;
}

describe("project server approval", () => {
  it("does not start a project server until the person approves it, and says how to approve", async () => {
    const hub = load();
    expect(hub.server("mem")).toMatchObject({ source: "project", state: { status: "needs-approval" } });
    await expect(hub.callTool("mem", "read_graph", {})).rejects.toThrow(/has not trusted it yet, so it was not started\. .*cairn trust .*cairn mcp approve mem$/);
    await expect(hub.listTools("mem")).rejects.toThrow(/not trusted/);
    await hub.connectAll();
    expect(hub.processId("mem")).toBeUndefined();
    expect(hub.promptSection()).toContain("- mem: not available; it comes from this project's .mcp.json and the user has not trusted it yet (they can run: cairn trust, or cairn mcp approve mem).");

    hub.approve("mem");
    expect(hub.server("mem")?.state.status).toBe("idle");
    const graph = await hub.callTool("mem", "read_graph", {});
    expect(graph.isError).toBeFalsy();
    expect(hub.processId("mem")).toBeGreaterThan(0);

    const stored = JSON.parse(await readFile(approvalsFile(home), "utf8")) as { approvals: unknown[] };
    expect(stored.approvals).toEqual([{ project: ws, server: "mem", hash: configHash(memoryEntry()), approvedAt: expect.any(String) }]);
    expect(load().server("mem")?.state.status).toBe("idle");
  });

  it("asks again when the entry changes, but not when only its key order does", async () => {
    load().approve("mem");
    const { command, args, env } = memoryEntry();
    await writeFile(projectConfigFile(ws), JSON.stringify({ mcpServers: { mem: { env, args, command } } }));
    expect(load().server("mem")?.state.status).toBe("idle");

    await writeFile(projectConfigFile(ws), JSON.stringify({ mcpServers: { mem: { ...memoryEntry(), args: [...args, "--extra"] } } }));
    expect(load().server("mem")?.state.status).toBe("needs-approval");
    await writeFile(projectConfigFile(ws), JSON.stringify({ mcpServers: { mem: { ...memoryEntry(), autoApprove: ["delete_entities"] } } }));
    const hub = load();
    expect(hub.server("mem")?.state.status).toBe("needs-approval");
    expect(hub.autoApproves("mem", "delete_entities")).toBe(false);
  });

  it("approves per project: the same entry in another workspace needs its own approval; global servers need none", async () => {
    load().approve("mem");
    await writeFile(projectConfigFile(other), JSON.stringify({ mcpServers: { mem: memoryEntry() } }));
    expect(load(other).server("mem")?.state.status).toBe("needs-approval");

    await writeFile(globalConfigFile(home), JSON.stringify({ mcpServers: { g: memoryEntry() } }));
    expect(load(other).server("g")).toMatchObject({ source: "global", state: { status: "idle" } });
  });

  it("opens every server of a trusted .mcp.json, and holds them back again when the file changes", async () => {
    const file = projectConfigFile(ws);
    trustDigest(home, ws, file, projectFileDigest(ws, file, await readFile(file, "utf8")).digest);
    expect(load().server("mem")?.state.status).toBe("idle");
    expect(load().untrusted()).toBeUndefined();
    await writeFile(file, JSON.stringify({ mcpServers: { mem: memoryEntry(), sh: { command: "sh", args: ["-c", "touch marker"] } } }));
    const hub = load();
    expect(hub.servers().map((s) => s.state.status)).toEqual(["needs-approval", "needs-approval"]);
    expect(hub.untrusted()).toEqual({ file, workspace: ws, what: "MCP servers", changed: true });
    expect(revokeProjectApprovals(home, ws)).toBe(0);
  });

  it("lets an unapproved project server shadow a global one of the same name without starting either", async () => {
    await writeFile(globalConfigFile(home), JSON.stringify({ mcpServers: { mem: { command: process.execPath, args: [serverEntry.memory()] } } }));
    const hub = load();
    expect(hub.servers().map((s) => [s.name, s.source, s.state.status, s.overridesGlobal])).toEqual([["mem", "project", "needs-approval", true]]);
    await expect(hub.callTool("mem", "read_graph", {})).rejects.toThrow(/not trusted/);
  });
});
