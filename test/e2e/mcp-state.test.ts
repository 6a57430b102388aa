import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serverEntry } from "../../packages/core/src/mcp/test-servers.js";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer } from "../support/scripted-model-server.js";

// Stdio MCP servers run in the default sandbox: CAIRN_HOME hidden, the disk read-only but for the
// workspace, /tmp (private), the server's state folder and its entry's writablePaths.

let workspace: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
/** Outside /tmp (the sandbox's own /tmp is private, so a write there would not reach the disk). */
let outside: string;
beforeEach(() => {
  workspace = tempDir("ws");
  home = tempDir("home");
  outside = realpathSync(mkdtempSync("/var/tmp/cairn-mcp-outside-"));
});
afterEach(() => {
  workspace.cleanup();
  home.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir });
const call = (name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, name, input }] });
const settings = (servers: Record<string, unknown>) => writeFileSync(path.join(home.dir, "mcp_settings.json"), JSON.stringify({ mcpServers: servers }));

/** The last message of a request to the model (the newest tool result), as JSON. */
const lastMessage = (request: string) => JSON.stringify((JSON.parse(request) as { messages: unknown[] }).messages.at(-1));

/** One `cairn run` whose model makes the given MCP calls, then finishes; the requests the model server saw. */
async function task(calls: ReturnType<typeof call>[], approve = "mcp") {
  const server = await startScriptedModelServer({ turns: [...calls, call("attempt_completion", { result: "done" })] });
  try {
    const run = await runCairn(["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", workspace.dir, "--auto-approve", approve, "--json", "use memory"], {
      env: env(),
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    return server.requests.map((r) => JSON.stringify(r.body));
  } finally {
    await server.close();
  }
}

describe("MCP servers that keep state, in the sandbox", () => {
  it("the memory server from npm keeps its graph across tasks, in its state folder under CAIRN_HOME", async () => {
    // No MEMORY_FILE_PATH: by default the server writes beside its own code, read-only in the sandbox.
    settings({ mem: { command: process.execPath, args: [serverEntry.memory()] } });
    const entity = { name: "Ada", entityType: "person", observations: ["wrote the first program"] };
    const first = await task([call("use_mcp_tool", { server_name: "mem", tool_name: "create_entities", arguments: { entities: [entity] } })]);
    expect(first[1]).toContain("wrote the first program");
    expect(first[1]).not.toContain("EROFS");
    const stateFile = path.join(home.dir, "mcp-state", "mem", "memory.jsonl");
    expect(readFileSync(stateFile, "utf8")).toContain("wrote the first program");

    // The state folder is the server's alone: a command of the task can neither read nor change it.
    const stateDir = path.dirname(stateFile);
    const second = await task(
      [
        call("use_mcp_tool", { server_name: "mem", tool_name: "read_graph", arguments: {} }),
        call("execute_command", { command: `cat ${stateFile}; echo forged > ${path.join(stateDir, "forged")}; ls -a ${stateDir}`, requires_approval: false }),
      ],
      "mcp,all-commands",
    );
    expect(second[1]).toContain("wrote the first program");
    const commandResult = lastMessage(second[2]!);
    expect(commandResult).toMatch(/No such file or directory|Read-only file system/);
    expect(commandResult).not.toContain("wrote the first program");
    expect(existsSync(path.join(stateDir, "forged"))).toBe(false);
  }, 180_000);

  it("writablePaths lets a server write there and nowhere else outside; a refused write names the setting", async () => {
    const allowed = path.join(outside, "allowed");
    const denied = path.join(outside, "denied");
    mkdirSync(allowed);
    mkdirSync(denied);
    settings({
      granted: { command: process.execPath, args: [serverEntry.memory()], env: { MEMORY_FILE_PATH: path.join(allowed, "memory.jsonl") }, writablePaths: [allowed] },
      // The same server pointed at a sibling folder its entry does not list.
      grabby: { command: process.execPath, args: [serverEntry.memory()], env: { MEMORY_FILE_PATH: path.join(denied, "memory.jsonl") }, writablePaths: [allowed] },
    });
    const entities = [{ name: "marker", entityType: "test", observations: ["written"] }];
    const requests = await task([
      call("use_mcp_tool", { server_name: "granted", tool_name: "create_entities", arguments: { entities } }),
      call("use_mcp_tool", { server_name: "grabby", tool_name: "create_entities", arguments: { entities } }),
    ]);
    expect(readFileSync(path.join(allowed, "memory.jsonl"), "utf8")).toContain("marker");
    expect(existsSync(path.join(denied, "memory.jsonl"))).toBe(false);
    const settingsFile = path.join(home.dir, "mcp_settings.json");
    expect(requests[2]).toContain(
      `MCP server grabby was refused a write in ${denied} (EROFS) by the sandbox: add that folder to \\"writablePaths\\" on its entry in ${settingsFile} (or set \\"sandbox\\": false there).`,
    );

    // cairn mcp test tries a write, and does not call such a server ok.
    const test = await runCairn(["mcp", "test", "grabby", "--cwd", workspace.dir], { env: env() });
    expect(test.code).toBe(1);
    expect(test.stderr).toBe(`cairn: MCP server grabby was refused a write in ${denied} (EROFS) by the sandbox: add that folder to "writablePaths" on its entry in ${settingsFile} (or set "sandbox": false there).\n`);
    expect(existsSync(path.join(denied, "memory.jsonl"))).toBe(false);
    const ok = await runCairn(["mcp", "test", "granted", "--cwd", workspace.dir], { env: env() });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^Connected to granted \(stdio\)/);
  }, 180_000);

  it("a server whose write fails at start is not called ok by cairn mcp test, and its failure names the setting", async () => {
    const marker = path.join(outside, "startup-marker");
    // A real process that writes outside the sandbox's writable folders before it speaks MCP.
    settings({ eager: { command: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "x")`] } });
    const test = await runCairn(["mcp", "test", "eager", "--cwd", workspace.dir], { env: env() });
    expect(test.code).toBe(1);
    expect(test.stderr).toBe(
      `cairn: eager failed after ${/\d+/.exec(test.stderr)?.[0]} ms: MCP server eager was refused a write in ${outside} (EROFS) by the sandbox: add that folder to "writablePaths" on its entry in ${path.join(home.dir, "mcp_settings.json")} (or set "sandbox": false there).\n`,
    );
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

    it("a server told to write in CAIRN_HOME is pointed at its state folder, which writablePaths could not name", async () => {
    settings({ mem: { command: process.execPath, args: [serverEntry.memory()], env: { MEMORY_FILE_PATH: path.join(home.dir, "m.jsonl") } } });
    const test = await runCairn(["mcp", "test", "mem", "--cwd", workspace.dir], { env: env() });
    expect(test.code).toBe(1);
    expect(test.stderr).toBe(
      `cairn: MCP server mem was refused a write in ${home.dir} (EROFS) by the sandbox: CAIRN_HOME is hidden from servers; point the server at its state folder ${path.join(home.dir, "mcp-state", "mem")} instead (its entry's "env" in ${path.join(home.dir, "mcp_settings.json")}).\n`,
    );
    expect(existsSync(path.join(home.dir, "m.jsonl"))).toBe(false);

    // Nor can one server write another's state folder: it sees only its own of CAIRN_HOME.
    const othersFile = path.join(home.dir, "mcp-state", "mem", "memory.jsonl");
    settings({
      mem: { command: process.execPath, args: [serverEntry.memory()] },
      other: { command: process.execPath, args: [serverEntry.memory()], env: { MEMORY_FILE_PATH: othersFile } },
    });
    expect((await runCairn(["mcp", "test", "mem", "--cwd", workspace.dir], { env: env() })).code).toBe(0);
    const other = await runCairn(["mcp", "test", "other", "--cwd", workspace.dir], { env: env() });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`MCP server other was refused a write in ${path.dirname(othersFile)} (ENOENT) by the sandbox: CAIRN_HOME is hidden from servers`);
    expect(readFileSync(othersFile, "utf8")).not.toContain("cairn-mcp-test");
  }, 60_000);

    it("refuses a writablePaths entry that is relative, the whole home folder or CAIRN_HOME", async () => {
    for (const [entry, problem] of [
      ["relative/dir", /must be absolute/],
      ["~", /whole home folder/],
      ["/", /whole home folder/],
      [home.dir, /overlaps CAIRN_HOME/],
    ] as const) {
      settings({ mem: { command: process.execPath, args: [serverEntry.memory()], writablePaths: [entry] } });
      const list = await runCairn(["mcp", "list", "--no-connect", "--cwd", workspace.dir], { env: env() });
      expect(list.stderr).toMatch(problem);
      expect(list.stderr).toContain(`MCP server "mem" in ${path.join(home.dir, "mcp_settings.json")}`);
    }
  }, 60_000);
});
