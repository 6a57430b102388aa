import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testContext } from "../tools/test-context.js";
import { accessMcpResourceTool } from "../tools/access-mcp-resource.js";
import { useMcpTool } from "../tools/use-mcp-tool.js";
import { globalConfigFile } from "./config.js";
import { McpHub } from "./hub.js";
import { serverEntry, startEverythingHttp } from "./test-servers.js";

/** The same checks against the everything server over each transport. */
const transports = [
  { name: "stdio", entry: async () => ({ entry: { command: process.execPath, args: [serverEntry.everything()] }, stop: async () => {} }) },
  {
    name: "streamable HTTP",
    entry: async () => {
      const server = await startEverythingHttp("streamableHttp");
      return { entry: { type: "streamable-http", url: server.url }, stop: server.stop };
    },
  },
  {
    name: "SSE",
    entry: async () => {
      const server = await startEverythingHttp("sse");
      return { entry: { type: "sse", url: server.url }, stop: server.stop };
    },
  },
  {
    name: "SSE from a bare url (streamable HTTP answered 404)",
    entry: async () => {
      const server = await startEverythingHttp("sse");
      return { entry: { url: server.url }, stop: server.stop };
    },
  },
];

describe.each(transports)("the everything server over $name", ({ entry }) => {
  let home: string;
  let ws: string;
  let hub: McpHub;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    home = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-home-")));
    ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-ws-")));
    const started = await entry();
    stop = started.stop;
    await writeFile(globalConfigFile(home), JSON.stringify({ mcpServers: { every: { ...started.entry, autoApprove: ["echo"] } } }));
    hub = McpHub.load({ home, cwd: ws });
  });

  afterAll(async () => {
    await hub.close();
    await stop();
    await rm(home, { recursive: true, force: true });
    await rm(ws, { recursive: true, force: true });
  });

  it("calls the echo tool through use_mcp_tool", async () => {
    const tool = useMcpTool(hub);
    const input = tool.parameters.parse({ server_name: "every", tool_name: "echo", arguments: { message: "hello there" } });
    expect(tool.autoApproved?.(input)).toBe(true);
    expect(await tool.execute(input, testContext(ws))).toEqual({ content: "Echo: hello there" });
    expect(hub.server("every")).toMatchObject({ state: { status: "connected" }, summary: expect.stringMatching(/^Everything Reference Server: /) });
  });

  it("returns an image tool's picture to a model that takes images, and a note to one that doesn't", async () => {
    const tool = useMcpTool(hub);
    const input = tool.parameters.parse({ server_name: "every", tool_name: "get-tiny-image" });
    expect(tool.autoApproved?.(input)).toBe(false);
    const withImages = await tool.execute(input, testContext(ws, { modelSupportsImages: true }));
    expect(withImages.content).toEqual([
      { type: "text", text: "Here's the image you requested:" },
      { type: "image", mediaType: "image/png", data: expect.stringMatching(/^iVBORw0KGgo/) },
      { type: "text", text: "The image above is the MCP logo." },
    ]);
    const withoutImages = await tool.execute(input, testContext(ws, { modelSupportsImages: false }));
    expect(withoutImages.content).toMatch(/^Here's the image you requested:\n\[an image \(image\/png, \d+ bytes\) left out: the current model cannot take images\]\nThe image above/);
  });

  it("reads a resource through access_mcp_resource", async () => {
    const tool = accessMcpResourceTool(hub);
    const result = await tool.execute({ server_name: "every", uri: "demo://resource/static/document/architecture.md" }, testContext(ws));
    expect(result.isError).toBeUndefined();
    expect(result.content).toMatch(/^# Everything Server – Architecture/);

    const dynamic = await tool.execute({ server_name: "every", uri: "demo://resource/dynamic/text/7" }, testContext(ws));
    expect(dynamic.content).toContain("7");
  });
});
