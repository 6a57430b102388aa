import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expandVars, globalConfigFile, loadMcpConfig, McpConfigError, projectConfigFile, readConfigFile, type ServerConfig } from "./config.js";
import { addServerEntry, removeServerEntry } from "./config-edit.js";

let home: string;
let ws: string;

beforeEach(async () => {
  home = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-home-")));
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-mcp-ws-")));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(ws, { recursive: true, force: true });
});

const writeJson = (file: string, value: unknown) => writeFile(file, JSON.stringify(value));
const read = (file: string, env: Record<string, string | undefined> = {}) => readConfigFile(file, "global", { env, cwd: ws });
const byName = (servers: ServerConfig[], name: string) => servers.find((s) => s.name === name);

describe("MCP config files", () => {
  it("stops on a misspelt key in mcp_settings.json, naming the nearest known key; a project's .mcp.json only loses that server", async () => {
    const file = globalConfigFile(home);
    await writeJson(file, { mcpServers: { mem: { command: "node", disabledTool: ["write"] } } });
    expect(() => read(file)).toThrow(McpConfigError);
    expect(() => read(file)).toThrow(/MCP server "mem" in .*: unknown key "disabledTool" \(did you mean "disabledTools"\?\)/);
    await writeJson(file, { mcpServer: {} });
    expect(() => read(file)).toThrow(/unknown key "mcpServer" \(did you mean "mcpServers"\?\)/);
    const project = projectConfigFile(ws);
    await writeJson(project, { mcpServers: { a: { command: "node", autoAprove: ["x"] }, b: { command: "node" } } });
    const { servers, problems } = readConfigFile(project, "project", { env: {}, cwd: ws });
    expect(servers.map((s) => s.name)).toEqual(["b"]);
    expect(problems[0]!.message).toMatch(/unknown key "autoAprove" \(did you mean "autoApprove"\?\)/);
  });

  it("reads writablePaths (~/ expanded) in mcp_settings.json, and refuses it in a project's .mcp.json, which cannot widen the sandbox", async () => {
    const file = globalConfigFile(home);
    await writeJson(file, { mcpServers: { notes: { command: "node", writablePaths: ["~/notes", "/srv/data/"] } } });
    const { servers } = readConfigFile(file, "global", { env: { HOME: "/home/me" }, cwd: ws, home });
    expect(byName(servers, "notes")).toMatchObject({ writablePaths: ["/home/me/notes", "/srv/data"] });
    const project = projectConfigFile(ws);
    await writeJson(project, { mcpServers: { notes: { command: "node", writablePaths: ["/srv/data"] } } });
    const fromProject = readConfigFile(project, "project", { env: { HOME: "/home/me" }, cwd: ws, home });
    expect(fromProject.servers).toEqual([]);
    expect(fromProject.problems[0]!.message).toMatch(/"writablePaths" is honoured only in your own mcp_settings\.json/);
    // Inside CAIRN_HOME and its parents alike.
    await writeJson(file, { mcpServers: { notes: { command: "node", writablePaths: [path.join(home, "sessions")] } } });
    expect(readConfigFile(file, "global", { env: { HOME: "/home/me" }, cwd: ws, home }).problems[0]!.message).toMatch(/overlaps CAIRN_HOME/);
    await writeJson(file, { mcpServers: { notes: { command: "node", writablePaths: [path.dirname(home)] } } });
    expect(readConfigFile(file, "global", { env: { HOME: "/home/me" }, cwd: ws, home }).problems[0]!.message).toMatch(/overlaps CAIRN_HOME/);
  });

  it("accepts a byte order mark and names the line and column of a JSON error", async () => {
    const file = globalConfigFile(home);
    await writeFile(file, '\uFEFF{"mcpServers": {"a": {"command": "node"}}}');
    expect(read(file).servers.map((s) => s.name)).toEqual(["a"]);
    await writeFile(file, '{"mcpServers": {\n  "a": {"command": "node",}\n}}');
    expect(() => read(file)).toThrow(/line 2, column 27/);
  });

  it("reads Claude Code's and Cline's shapes: stdio, sse, http spellings, autoApprove, disabled, timeout", async () => {
    const file = globalConfigFile(home);
    await writeJson(file, {
      mcpServers: {
        local: { command: "node", args: ["server.js", "--flag"], env: { LEVEL: "3" }, cwd: "tools" },
        cline: { type: "stdio", command: "python", autoApprove: ["read"], disabled: true, timeout: 5 },
        old: { type: "sse", url: "http://127.0.0.1:9/sse", headers: { Authorization: "Bearer x" } },
        cc: { type: "http", url: "https://example.com/mcp" },
        camel: { type: "streamableHttp", url: "https://example.com/a" },
        kebab: { type: "streamable-http", url: "https://example.com/b", alwaysAllow: ["x"], disabledTools: ["y"] },
        bare: { url: "https://example.com/c" },
      },
    });
    const { servers, problems } = read(file);
    expect(problems).toEqual([]);
    expect(byName(servers, "local")).toMatchObject({
      transport: "stdio",
      command: "node",
      args: ["server.js", "--flag"],
      env: { LEVEL: "3" },
      cwd: path.join(ws, "tools"),
      timeoutMs: 60_000,
      disabled: false,
      autoApprove: [],
    });
    expect(byName(servers, "cline")).toMatchObject({ transport: "stdio", autoApprove: ["read"], disabled: true, timeoutMs: 5000, cwd: ws });
    expect(byName(servers, "old")).toMatchObject({ transport: "sse", url: "http://127.0.0.1:9/sse", headers: { Authorization: "Bearer x" } });
    expect(byName(servers, "cc")).toMatchObject({ transport: "http", fallbackToSse: false });
    expect(byName(servers, "camel")?.transport).toBe("http");
    expect(byName(servers, "kebab")).toMatchObject({ transport: "http", autoApprove: ["x"], disabledTools: ["y"] });
    expect(byName(servers, "bare")).toMatchObject({ transport: "http", fallbackToSse: true });
  });

  it("expands ${VAR} and ${VAR:-default} in command, args, env, cwd, url and headers, keeping the raw entry", async () => {
    const file = globalConfigFile(home);
    const entry = { command: "${BIN}", args: ["--root", "${ROOT:-/srv}", "${EMPTY:-fallback}"], env: { TOKEN: "${TOKEN}" }, cwd: "${DIR:-sub}" };
    await writeJson(file, { mcpServers: { s: entry, r: { type: "http", url: "${HOST:-http://localhost:1}/mcp", headers: { "X-Key": "k-${TOKEN}" } } } });
    const { servers, problems } = read(file, { BIN: "/usr/bin/node", TOKEN: "t0k", EMPTY: "" });
    expect(problems).toEqual([]);
    expect(byName(servers, "s")).toMatchObject({ command: "/usr/bin/node", args: ["--root", "/srv", "fallback"], env: { TOKEN: "t0k" }, cwd: path.join(ws, "sub"), raw: entry });
    expect(byName(servers, "r")).toMatchObject({ url: "http://localhost:1/mcp", headers: { "X-Key": "k-t0k" } });
    expect(expandVars("$HOME and ${A}${B:-b}", { A: "a" })).toBe("$HOME and ab");
  });

  it("reports a bad entry on one line and still loads the others", async () => {
    const file = globalConfigFile(home);
    await writeJson(file, {
      mcpServers: {
        good: { command: "node" },
        unset: { command: "node", env: { KEY: "${MISSING_KEY}" } },
        neither: { args: ["x"] },
        badType: { type: "websocket", url: "ws://x" },
        badArgs: { command: "node", args: "--flag" },
        badUrl: { type: "http", url: "ftp://example.com" },
        badTimeout: { command: "node", timeout: -1 },
      },
    });
    const { servers, problems } = read(file);
    expect(servers.map((s) => s.name)).toEqual(["good"]);
    expect(problems.map((p) => p.name)).toEqual(["unset", "neither", "badType", "badArgs", "badUrl", "badTimeout"]);
    for (const p of problems) {
      expect(p.message).not.toContain("\n");
      expect(p.message).toContain(file);
    }
    expect(problems[0]?.message).toContain("${MISSING_KEY}, which is not set");
    expect(problems[2]?.message).toContain('unknown "type" "websocket"');
  });

  it("refuses a broken file as a whole with one line naming the file", async () => {
    const file = globalConfigFile(home);
    await writeFile(file, '{"mcpServers": {"a": ');
    expect(() => read(file)).toThrow(McpConfigError);
    expect(() => read(file)).toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is not valid JSON`));
    await writeJson(file, { mcpServers: ["a"] });
    expect(() => read(file)).toThrow(/"mcpServers" must be an object/);
    await writeFile(file, "");
    expect(read(file)).toEqual({ servers: [], problems: [], text: "" });
    expect(read(path.join(home, "missing.json"))).toEqual({ servers: [], problems: [], text: "" });
  });

  it("merges global and project files; a project server replaces a global one of the same name", async () => {
    await writeJson(globalConfigFile(home), { mcpServers: { shared: { command: "global-cmd" }, only_global: { command: "g" } } });
    await writeJson(projectConfigFile(ws), { mcpServers: { shared: { command: "project-cmd" }, only_project: { command: "p" } } });
    const config = loadMcpConfig({ home, cwd: ws, env: {} });
    expect(config.servers.map((s) => [s.name, s.source])).toEqual([
      ["only_global", "global"],
      ["shared", "project"],
      ["only_project", "project"],
    ]);
    expect(byName(config.servers, "shared")).toMatchObject({ command: "project-cmd", file: projectConfigFile(ws) });
    expect(config.overridden).toEqual(["shared"]);
  });
});

describe("editing a config file", () => {
  it("adds, replaces and removes servers, keeping other entries and keys", async () => {
    const file = path.join(ws, ".mcp.json");
    await writeJson(file, { other: { keep: true }, mcpServers: { a: { command: "a" } } });
    expect(addServerEntry(file, "b", { command: "b", args: ["1"] })).toEqual({ replaced: false });
    expect(addServerEntry(file, "a", { type: "http", url: "https://x/mcp" })).toEqual({ replaced: true });
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      other: { keep: true },
      mcpServers: { a: { type: "http", url: "https://x/mcp" }, b: { command: "b", args: ["1"] } },
    });
    expect(removeServerEntry(file, "a")).toBe(true);
    expect(removeServerEntry(file, "a")).toBe(false);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ other: { keep: true }, mcpServers: { b: { command: "b", args: ["1"] } } });
  });

  it("creates a missing file (and folder) and refuses to overwrite a broken one", async () => {
    const file = path.join(home, "new", "mcp_settings.json");
    addServerEntry(file, "s", { command: "s" });
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ mcpServers: { s: { command: "s" } } });
    await writeFile(file, "{ nope");
    expect(() => addServerEntry(file, "t", { command: "t" })).toThrow(/not valid JSON.*it was not changed/);
    expect(await readFile(file, "utf8")).toBe("{ nope");
  });
});
