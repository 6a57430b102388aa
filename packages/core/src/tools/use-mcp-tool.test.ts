import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalConfigFile } from "../mcp/config.js";
import { McpHub } from "../mcp/hub.js";
import { writeTestServer } from "../mcp/test-servers.js";
import { coerceXmlParams } from "../protocol/coerce.js";
import { toolSpec } from "../protocol/native.js";
import { testContext } from "./test-context.js";
import { useMcpTool } from "./use-mcp-tool.js";

let home: string;
let hub: McpHub;
let tool: ReturnType<typeof useMcpTool>;

beforeAll(async () => {
  home = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-use-mcp-")));
  const script = await writeTestServer(home);
  await writeFile(globalConfigFile(home), JSON.stringify({ mcpServers: { test: { command: process.execPath, args: [script], autoApprove: ["calls"] } } }));
  hub = McpHub.load({ home, cwd: home });
  tool = useMcpTool(hub);
});

afterAll(async () => {
  await hub.close();
  await rm(home, { recursive: true, force: true });
});

const run = (input: Record<string, unknown>, overrides = {}) => tool.execute(tool.parameters.parse(input), testContext(home, overrides));

describe("use_mcp_tool", () => {
  it("without tool_name, lists the server's tools with descriptions and input schemas, and its instructions", async () => {
    const result = await run({ server_name: "test" });
    expect(result.isError).toBeUndefined();
    const text = result.content as string;
    expect(text).toMatch(/^MCP server test \(cairn-test\)\n\nIts instructions:\nA test server\.\nSecond line\.\n\nTools \(5\); call them with use_mcp_tool, server_name "test":/);
    expect(text).toContain('## strict\nCounts calls.\nInput schema: {"type":"object","properties":{"n":{"type":"integer"}');
    expect(text).toContain("## crash\nExits the process.");
    expect(text).not.toContain("$schema");
    expect(tool.autoApproved?.(tool.parameters.parse({ server_name: "test" }))).toBe(true);
  });

  it("calls a tool, and runs it without asking only when the server's autoApprove lists it", async () => {
    expect(await run({ server_name: "test", tool_name: "strict", arguments: { n: 1 } })).toEqual({ content: 'strict got {"n":1}' });
    expect(tool.autoApproved?.(tool.parameters.parse({ server_name: "test", tool_name: "calls" }))).toBe(true);
    expect(tool.autoApproved?.(tool.parameters.parse({ server_name: "test", tool_name: "strict", arguments: { n: 1 } }))).toBe(false);
    expect(tool.summarize?.(tool.parameters.parse({ server_name: "test", tool_name: "strict" }))).toBe("test: strict");
  });

  it("passes the server's isError through", async () => {
    expect(await run({ server_name: "test", tool_name: "fail" })).toEqual({ content: "it failed on purpose", isError: true });
  });

  it("returns invalid arguments to the model with the schema, without calling the server", async () => {
    const before = (await run({ server_name: "test", tool_name: "calls" })).content;
    const result = await run({ server_name: "test", tool_name: "strict", arguments: { n: 1.5 } });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Invalid arguments for tool strict of MCP server test \(the call was not sent\):\n- arguments\.n must be integer\nIts input schema: /);
    expect((await run({ server_name: "test", tool_name: "calls" })).content).toBe(before);
  });

  it("turns an unknown server into an error that lists the servers", async () => {
    expect(await run({ server_name: "nope", tool_name: "x" })).toEqual({ content: 'There is no MCP server named "nope" (servers: test).', isError: true });
  });

  it("takes arguments as JSON text from the xml protocol, and declares them as an object for native calls", async () => {
    const input = coerceXmlParams(tool.parameters, { server_name: "test", tool_name: "strict", arguments: '{"n": 7, "tags": ["x"]}' });
    expect(await tool.execute(tool.parameters.parse(input), testContext(home))).toEqual({ content: 'strict got {"n":7,"tags":["x"]}' });
    const spec = toolSpec(tool);
    expect(spec.inputSchema).toMatchObject({ type: "object", required: ["server_name"], properties: { arguments: { type: "object" } } });
    expect(spec.description).not.toContain("<use_mcp_tool>");
  });
});
