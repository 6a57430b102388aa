import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testContext } from "../test-context.js";
import { globalConfigFile } from "../../mcp/config.js";
import { McpHub } from "../../mcp/hub.js";
import { mcpTools, nativeMcpTools, nativeToolName } from "./mcp-tools.js";
import { writeTestServer } from "../../mcp/test-servers.js";

let home: string;
let hub: McpHub;

beforeAll(async () => {
  home = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-native-mcp-")));
  const script = await writeTestServer(home);
  await writeFile(
    globalConfigFile(home),
    JSON.stringify({ mcpServers: { "my.test": { command: process.execPath, args: [script], autoApprove: ["calls"] }, idle: { command: process.execPath, args: [script] } } }),
  );
  hub = McpHub.load({ home, cwd: home });
});

afterAll(async () => {
  await hub.close();
  await rm(home, { recursive: true, force: true });
});

describe("MCP tools for the model", () => {
  it("gives the generic pair, use_mcp_tool for act and access_mcp_resource for act and plan", () => {
    expect(mcpTools(hub).map((t) => [t.name, t.kind, t.modes])).toEqual([
      ["use_mcp_tool", "mcp", ["act"]],
      ["access_mcp_resource", "mcp", ["act", "plan"]],
    ]);
  });

  it("names native tools mcp__server__tool in provider-safe characters, at most 64 long and still distinct", () => {
    expect(nativeToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(nativeToolName("my.server", "get sum/v2")).toBe("mcp__my_server__get_sum_v2");
    const long = nativeToolName("server", "x".repeat(80));
    const other = nativeToolName("server", `${"x".repeat(79)}y`);
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
    expect(other).not.toBe(long);
  });

  it("makes one native tool per MCP tool of the loaded servers, with the server's own schema", async () => {
    expect(nativeMcpTools(hub, ["my.test"])).toEqual([]);
    await hub.listTools("my.test");
    const tools = nativeMcpTools(hub, ["my.test", "idle", "missing"]);
    expect(tools.map((t) => t.name)).toEqual(["mcp__my_test__strict", "mcp__my_test__calls", "mcp__my_test__block", "mcp__my_test__crash", "mcp__my_test__fail"]);
    const strict = tools[0]!;
    expect(strict.description).toBe("Counts calls. (MCP server my.test, tool strict)");
    expect(strict.inputJsonSchema).toEqual({
      type: "object",
      properties: { n: { type: "integer" }, mode: { enum: ["a", "b"] }, tags: { type: "array", items: { type: "string" } } },
      required: ["n"],
      additionalProperties: false,
    });
    expect(strict.parameters.safeParse({ anything: 1 }).success).toBe(true);
    expect([strict.kind, strict.modes, strict.autoApproved?.({}), tools[1]!.autoApproved?.({})]).toEqual(["mcp", ["act"], false, true]);

    const ctx = testContext(home);
    expect(await strict.execute({ n: 2 }, ctx)).toEqual({ content: 'strict got {"n":2}' });
    const refused = await strict.execute({ n: "2" }, ctx);
    expect(refused).toMatchObject({ isError: true, content: expect.stringContaining("- arguments.n must be integer") });
    expect(await tools[1]!.execute({}, ctx)).toEqual({ content: "1" });
  });
});
