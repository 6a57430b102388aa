import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { globalConfigFile } from "./config.js";
import { McpHub } from "./hub.js";
import { serverEntry } from "./test-servers.js";

let home: string;
let ws: string;
let allowed: string;
let hubs: McpHub[] = [];

beforeEach(async () => {
  home = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-home-")));
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-ws-")));
  allowed = path.join(ws, "allowed");
  await mkdir(path.join(allowed, "sub"), { recursive: true });
  await writeFile(path.join(allowed, "notes.txt"), "first line\nsecond line\n");
  await writeFile(path.join(ws, "secret.txt"), "outside the allowed root\n");
  await writeFile(
    globalConfigFile(home),
    JSON.stringify({
      mcpServers: {
        files: { command: process.execPath, args: [serverEntry.filesystem(), "${ALLOWED}"] },
        memory: { command: process.execPath, args: [serverEntry.memory()], env: { MEMORY_FILE_PATH: path.join(home, "memory.jsonl") }, autoApprove: ["read_graph"] },
        off: { command: process.execPath, args: [serverEntry.memory()], disabled: true },
      },
    }),
  );
});

afterEach(async () => {
  await Promise.all(hubs.map((h) => h.close()));
  hubs = [];
  await rm(home, { recursive: true, force: true });
  await rm(ws, { recursive: true, force: true });
});

function load(): McpHub {
  const hub = McpHub.load({ home, cwd: ws, env: { ...process.env, ALLOWED: allowed } });
  hubs.push(hub);
  return hub;
}

const text = (result: { content: Array<{ type: string; text?: string }> }) => result.content.map((c) => c.text ?? "").join("\n");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("McpHub with stdio servers", () => {
  it("starts nothing until a server is first needed, then only that one", async () => {
    const hub = load();
    expect(hub.servers().map((s) => [s.name, s.source, s.transport, s.state.status])).toEqual([
      ["files", "global", "stdio", "idle"],
      ["memory", "global", "stdio", "idle"],
      ["off", "global", "stdio", "disabled"],
    ]);
    expect(hub.processId("files")).toBeUndefined();
    expect(hub.knownTools("files")).toBeUndefined();

    const tools = await hub.listTools("files");
    expect(tools.map((t) => t.name)).toContain("list_directory");
    const pid = hub.processId("files");
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid ?? 0)).toBe(true);
    expect(hub.server("files")).toMatchObject({ state: { status: "connected" }, toolCount: tools.length, toolsFrom: "live" });
    expect(hub.server("memory")?.state.status).toBe("idle");
    expect(hub.processId("memory")).toBeUndefined();

    await hub.close();
    expect(alive(pid ?? 0)).toBe(false);
  });

  it("lists a folder and reads a file through the filesystem server; a path outside its root comes back as the server's error", async () => {
    const hub = load();
    const listing = await hub.callTool("files", "list_directory", { path: allowed });
    expect(listing.isError).toBeFalsy();
    expect(text(listing)).toContain("[FILE] notes.txt");
    expect(text(listing)).toContain("[DIR] sub");

    const read = await hub.callTool("files", "read_text_file", { path: path.join(allowed, "notes.txt") });
    expect(text(read)).toBe("first line\nsecond line\n");

    const outside = await hub.callTool("files", "read_text_file", { path: path.join(ws, "secret.txt") });
    expect(outside.isError).toBe(true);
    expect(text(outside)).toMatch(/access denied|outside allowed/i);
    expect(text(outside)).not.toContain("outside the allowed root");
  });

  it("keeps a knowledge graph in the memory server: create entities, then read the graph back", async () => {
    const hub = load();
    const created = await hub.callTool("memory", "create_entities", {
      entities: [
        { name: "Cairn", entityType: "project", observations: ["written in TypeScript"] },
        { name: "MCP", entityType: "protocol", observations: [] },
      ],
    });
    expect(created.isError).toBeFalsy();
    await hub.callTool("memory", "create_relations", { relations: [{ from: "Cairn", to: "MCP", relationType: "speaks" }] });
    const graph = JSON.parse(text(await hub.callTool("memory", "read_graph", {}))) as { entities: Array<{ name: string }>; relations: unknown[] };
    expect(graph.entities.map((e) => e.name).sort()).toEqual(["Cairn", "MCP"]);
    expect(graph.relations).toEqual([{ from: "Cairn", to: "MCP", relationType: "speaks" }]);
    expect(await readFile(path.join(home, "memory.jsonl"), "utf8")).toContain("written in TypeScript");
    expect(hub.autoApproves("memory", "read_graph")).toBe(true);
    expect(hub.autoApproves("memory", "create_entities")).toBe(false);
  });

  it("connects several servers in parallel, and names their tools in the prompt section (from the cache in the next run)", async () => {
    const hub = load();
    const states: string[] = [];
    hub.subscribe((info) => states.push(`${info.name}:${info.state.status}`));
    const started = Date.now();
    await hub.connectAll();
    const elapsed = Date.now() - started;
    expect(states).toEqual(expect.arrayContaining(["files:connecting", "memory:connecting", "files:connected", "memory:connected"]));
    // Both were connecting before either finished.
    expect(states.indexOf("memory:connecting")).toBeLessThan(states.findIndex((s) => s.endsWith(":connected")));
    expect(hub.server("off")?.state.status).toBe("disabled");
    expect(elapsed).toBeLessThan(10_000);

    const section = hub.promptSection();
    expect(section).toContain("# MCP servers");
    expect(section).toMatch(/- files.*\n {2}tools: .*read_text_file.*list_directory/);
    expect(section).toMatch(/- memory.*\n {2}tools: create_entities, create_relations/);
    expect(section).not.toContain("inputSchema");
    expect(section).not.toContain("- off");
    await hub.close();

    const next = load();
    expect(next.processId("files")).toBeUndefined();
    expect(next.server("files")).toMatchObject({ state: { status: "idle" }, toolsFrom: "cache" });
    expect(next.promptSection()).toMatch(/- files.*\n {2}tools: .*read_text_file/);
  });

  it("reports an entry it could not read, keeps the others, and tells the model what is wrong", async () => {
    await writeFile(globalConfigFile(home), JSON.stringify({ mcpServers: { bad: { command: ["node"] }, memory: { command: process.execPath, args: [serverEntry.memory()] } } }));
    const hub = load();
    expect(hub.problems).toEqual([`MCP server "bad" in ${globalConfigFile(home)}: "command" must be a string.`]);
    expect(hub.server("bad")).toMatchObject({ transport: undefined, state: { status: "failed", reason: `invalid entry in ${globalConfigFile(home)}: "command" must be a string.` } });
    await expect(hub.callTool("bad", "x", {})).rejects.toThrow(`MCP server "bad" in ${globalConfigFile(home)}: "command" must be a string. Tell the user to fix that entry.`);
    expect(hub.promptSection()).toContain('- bad: not available; failed (invalid entry in');
    expect((await hub.listTools("memory")).length).toBeGreaterThan(0);
  });

  it("answers a call to an unknown server or tool with what exists", async () => {
    const hub = load();
    await expect(hub.callTool("nope", "x", {})).rejects.toThrow('There is no MCP server named "nope" (servers: files, memory, off).');
    await expect(hub.callTool("memory", "fly", {})).rejects.toThrow(/MCP server memory has no tool named "fly"\. Its tools: create_entities,/);
    await expect(hub.callTool("off", "read_graph", {})).rejects.toThrow(/disabled in .*mcp_settings\.json/);
  });
});
