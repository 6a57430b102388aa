import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

/**
 * A language server runs in the command sandbox with no network, whatever the task's: it needs
 * none, and it may run the workspace's code. Through the real CLI on real bubblewrap, a stand-in
 * server started exactly as servers are (a configured `lsp` server) tries the machine's own network
 * address; a command of the same task (network on, the default) reaches the same listener.
 */
const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

let listener: Server;
let port = 0;
let connections: string[] = [];
beforeEach(async () => {
  connections = [];
  listener = createServer((socket) => {
    connections.push(socket.remoteAddress ?? "?");
    socket.end("LISTENER-ANSWERED\n");
  });
  await new Promise<void>((resolve) => listener.listen(0, "0.0.0.0", resolve));
  port = (listener.address() as AddressInfo).port;
});
afterEach(async () => {
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

/** The machine's own address on its network: not loopback, so reachable from the task's network. */
function ownAddress(): string {
  const address = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a?.family === "IPv4" && !a.internal);
  expect(address, "this test needs a network interface besides loopback").toBeDefined();
  return address!.address;
}

/** Node code that connects to host:port and hands `report(line)` what happened. */
const tryConnect = (host: string, report: string) =>
  `require("net").connect(${port}, ${JSON.stringify(host)}).on("data", (d) => ${report}("GOT " + String(d).trim())).on("error", (e) => ${report}("FAILED " + e.code));`;

it("a language server cannot reach the machine's network address, while a command of the same task can", async () => {
  const ws = fx.workspace.dir;
  const own = ownAddress();
  // The stand-in server: tries the network, writes what happened where the test can read it, exits
  // (the edit then goes on unchecked). It runs where a real server runs: in the workspace, sandboxed.
  const outcome = path.join(ws, "server-network.txt");
  writeFileSync(
    path.join(ws, "probe-server.cjs"),
    `const report = (line) => { require("fs").writeFileSync(${JSON.stringify(outcome)}, line); process.exit(0); };\n${tryConnect(own, "report")}\n`,
  );
  writeFileSync(
    path.join(fx.home.dir, "settings.json"),
    JSON.stringify({ checkpoints: false, lsp: { startWaitMs: 240_000, servers: { probe: { command: [process.execPath, path.join(ws, "probe-server.cjs")], extensions: [".probe"] } } } }),
  );
  const command = `node -e '${tryConnect(own, "console.log")}'`;
  fx.server = await startScriptedModelServer({
    turns: [
      call("write_to_file", { path: "a.probe", content: "anything\n" }),
      call("execute_command", { command, requires_approval: false }),
      call("attempt_completion", { result: "done" }),
    ],
  });
  const result = await runCairn(
    ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", ws, "--json", "--auto-approve", "all-commands,read,edit", "go"],
    { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }), timeoutMs: 600_000 },
  );
  expect(result.code, result.stderr).toBe(0);
  expect(result.events.find((e) => e.type === "system" && e.subtype === "init")).toMatchObject({ sandbox: { engine: "bubblewrap", network: "on" } });
  // The server ran (it wrote its outcome) and its connection failed: no network at all.
  expect(readFileSync(outcome, "utf8")).toMatch(/^FAILED E/);
  // The control: the task's command, network on, reached the same listener at the same address.
  const toldAfterCommand = JSON.stringify((fx.server.requests[2]!.body as { messages: unknown[] }).messages.at(-1));
  expect(toldAfterCommand).toContain("GOT LISTENER-ANSWERED");
  expect(connections).toEqual([own]);
}, 900_000);
