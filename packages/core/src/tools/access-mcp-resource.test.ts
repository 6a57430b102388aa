import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { globalConfigFile } from "../mcp/config.js";
import { McpHub } from "../mcp/hub.js";
import { serverEntry } from "../mcp/test-servers.js";
import { accessMcpResourceTool } from "./access-mcp-resource.js";
import { testContext } from "./test-context.js";

let home: string;
let hub: McpHub;
let tool: ReturnType<typeof accessMcpResourceTool>;

beforeAll(async () => {
  home = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-resource-")));
  await writeFile(globalConfigFile(home), JSON.stringify({ mcpServers: { every: { command: process.execPath, args: [serverEntry.everything()] } } }));
  hub = McpHub.load({ home, cwd: home });
  tool = accessMcpResourceTool(hub);
});

afterAll(async () => {
  await hub.close();
  await rm(home, { recursive: true, force: true });
});

const read = (uri: string, server = "every") => tool.execute(tool.parameters.parse({ server_name: server, uri }), testContext(home));

describe("access_mcp_resource", () => {
  it("reads a text resource, and a text blob as text", async () => {
    expect((await read("demo://resource/static/document/features.md")).content).toMatch(/^# Everything Server - Features\n/);
    expect((await read("demo://resource/dynamic/blob/3")).content).toMatch(/^Resource 3: This is a base64 blob created at /);
  });

  it("answers an unknown URI with the server's error and the resources it has", async () => {
    const result = await read("demo://resource/nowhere");
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^MCP server every returned an error for reading demo:\/\/resource\/nowhere: .*Its resources: demo:\/\/resource\/static\/document\/architecture\.md, /s);
  });

  it("is offered in plan mode too, and summarises the read", () => {
    expect(tool.modes).toEqual(["act", "plan"]);
    expect(tool.kind).toBe("mcp");
    expect(tool.summarize?.({ server_name: "every", uri: "demo://x" })).toBe("read demo://x from MCP server every");
  });
});
