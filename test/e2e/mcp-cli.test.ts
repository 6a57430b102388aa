import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serverEntry } from "../../packages/core/src/mcp/test-servers.js";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";

let workspace: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
beforeEach(() => {
  workspace = tempDir("ws");
  home = tempDir("home");
});
afterEach(() => {
  workspace.cleanup();
  home.cleanup();
});
const env = () => cleanEnv({ CAIRN_HOME: home.dir });
const mcp = (...args: string[]) => runCairn(["mcp", ...args, "--cwd", workspace.dir], { env: env() });

describe("cairn mcp", () => {
  it("adds a server, lists and tests it, removes it", async () => {
    // No MEMORY_FILE_PATH: the server keeps its graph in its state folder, which `test` writes to.
    const add = await runCairn(["mcp", "add", "mem", "--", process.execPath, serverEntry.memory()], { env: env() });
    expect(add.code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(home.dir, "mcp_settings.json"), "utf8")).mcpServers.mem.command).toBe(process.execPath);
    const list = await mcp("list", "--json");
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: "mem", source: "global", transport: "stdio", state: { status: "connected" }, toolCount: 9 })]);
    const test = await mcp("test", "mem");
    expect(test.code).toBe(0);
    expect(test.stdout).toMatch(/^Connected to mem \(stdio\) in \d+ ms/);
    expect((await runCairn(["mcp", "remove", "mem"], { env: env() })).code).toBe(0);
    expect((await runCairn(["mcp", "remove", "mem"], { env: env() })).code).toBe(2);
  });

  it("needs approval for a project server, and test exits 1 until then", async () => {
    writeFileSync(path.join(workspace.dir, ".mcp.json"), JSON.stringify({ mcpServers: { every: { command: process.execPath, args: [serverEntry.everything()] } } }));
    const blocked = await mcp("test", "every");
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain("cairn mcp approve every");
    expect((await mcp("approve", "every")).code).toBe(0);
    expect((await mcp("test", "every")).code).toBe(0);
  });

  it("exits 2 with one line naming a broken config file", async () => {
    writeFileSync(path.join(home.dir, "mcp_settings.json"), "{oops");
    const run = await mcp("list");
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^cairn: .*mcp_settings\.json is not valid JSON: .* at line 1, column 2\. .*\n$/);
  });

  it("exits 1 with the reason when a server cannot start", async () => {
    await runCairn(["mcp", "add", "gone", "--", path.join(workspace.dir, "no-such-binary")], { env: env() });
    const run = await mcp("test", "gone");
    expect(run.code).toBe(1);
    // Started in the sandbox, the missing program is bubblewrap's to report.
    expect(run.stderr).toMatch(/^cairn: gone failed after \d+ ms: .*no-such-binary.*(ENOENT|No such file or directory)\n$/);
  });
});

describe("MCP tools through cairn run", () => {
  it("the model loads a server's tools, calls one through use_mcp_tool, then natively as mcp__server__tool", async () => {
    const { startScriptedModelServer } = await import("../support/scripted-model-server.js");
    // In the workspace: stdio servers run in the sandbox, where CAIRN_HOME is hidden and the rest of the disk read-only.
    const memoryFile = path.join(workspace.dir, "memory.jsonl");
    writeFileSync(
      path.join(home.dir, "mcp_settings.json"),
      JSON.stringify({ mcpServers: { mem: { command: process.execPath, args: [serverEntry.memory()], env: { MEMORY_FILE_PATH: memoryFile } } } }),
    );
    const call = (name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, name, input }] });
    const server = await startScriptedModelServer({
      turns: [
        call("use_mcp_tool", { server_name: "mem" }),
        call("use_mcp_tool", { server_name: "mem", tool_name: "create_entities", arguments: { entities: [{ name: "Cairn", entityType: "project", observations: ["an agent"] }] } }),
        call("mcp__mem__read_graph", {}),
        call("use_mcp_tool", { server_name: "mem", tool_name: "create_entities", arguments: { entities: "not a list" } }),
        call("attempt_completion", { result: "remembered" }),
      ],
    });
    try {
      const run = await runCairn(["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", workspace.dir, "--auto-approve", "mcp", "--json", "remember the project"], {
        env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir }),
        timeoutMs: 60_000,
      });
      expect(run.code, run.stderr).toBe(0);
      // The prompt named the server's tools briefly, not their schemas.
      expect(JSON.stringify(server.requests[0]!.body.system)).toContain("mem");
      expect(JSON.stringify(server.requests[1]!.body)).toContain("create_entities");
      // After loading, the server's tools are offered natively.
      expect((server.requests[2]!.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toContain("mcp__mem__read_graph");
      expect(JSON.stringify(server.requests[3]!.body)).toContain("an agent");
      expect(readFileSync(memoryFile, "utf8")).toContain("Cairn");
      // Bad arguments are refused before the server sees them.
      expect(JSON.stringify(server.requests[4]!.body)).toMatch(/entities/);
      expect(run.events.filter((e) => e.type === "tool_call_update" && "content" in e).map((e) => e.status)).toEqual(["completed", "completed", "completed", "failed", "completed"]);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe("the three real MCP servers through cairn run", () => {
  it("filesystem (stdio), everything (stdio) and everything (streamable HTTP, project .mcp.json once approved)", async () => {
    const { startScriptedModelServer } = await import("../support/scripted-model-server.js");
    const { startEverythingHttp } = await import("../../packages/core/src/mcp/test-servers.js");
    const shared = path.join(workspace.dir, "shared");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(shared);
    writeFileSync(path.join(shared, "notes.md"), "notes from the filesystem server\n");
    writeFileSync(
      path.join(home.dir, "mcp_settings.json"),
      JSON.stringify({
        mcpServers: {
          files: { command: process.execPath, args: [serverEntry.filesystem(), shared] },
          every: { command: process.execPath, args: [serverEntry.everything()], autoApprove: ["echo"] },
        },
      }),
    );
    const http = await startEverythingHttp("streamableHttp");
    writeFileSync(path.join(workspace.dir, ".mcp.json"), JSON.stringify({ mcpServers: { remote: { type: "http", url: http.url } } }));
    const call = (name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, name, input }] });
    const server = await startScriptedModelServer({
      responder: (_request, index) =>
        [
          call("use_mcp_tool", { server_name: "files", tool_name: "read_text_file", arguments: { path: path.join(shared, "notes.md") } }),
          call("use_mcp_tool", { server_name: "every", tool_name: "echo", arguments: { message: "hello over stdio" } }),
          call("use_mcp_tool", { server_name: "remote", tool_name: "echo", arguments: { message: "hello over http" } }),
          call("attempt_completion", { result: "done" }),
          // the second run, once the project server is approved
          call("use_mcp_tool", { server_name: "remote", tool_name: "echo", arguments: { message: "hello over http" } }),
        ][index] ?? call("attempt_completion", { result: "done" }),
    });
    const env2 = cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir });
    const args = ["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", workspace.dir, "--json"];
    try {
      // echo is auto-approved by its server entry; the filesystem read needs "mcp"; the project server needs approval first.
      const first = await runCairn([...args, "--auto-approve", "mcp", "use the servers"], { env: env2, timeoutMs: 60_000 });
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.stringify(server.requests[1]!.body)).toContain("notes from the filesystem server");
      expect(JSON.stringify(server.requests[2]!.body)).toContain("hello over stdio");
      expect(JSON.stringify(server.requests[3]!.body)).toMatch(/approv/i);
      expect(JSON.stringify(server.requests[3]!.body)).not.toContain("Echo: hello over http");

      expect((await runCairn(["mcp", "approve", "remote", "--cwd", workspace.dir], { env: env2 })).code).toBe(0);
      const second = await runCairn([...args, "--auto-approve", "mcp", "again"], { env: env2, timeoutMs: 60_000 });
      expect(second.code, second.stderr).toBe(0);
      expect(JSON.stringify(server.requests[5]!.body)).toContain("hello over http");
    } finally {
      await server.close();
      await http.stop();
    }
  }, 90_000);
});
