import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

/**
 * browser_action sees what the task's commands see, through the real CLI, real bubblewrap,
 * slirp4netns and Debian's Chromium: with network on, Chromium starts in the commands' network
 * namespace, so a dev server a command started in the background on 127.0.0.1 answers it, and
 * this machine's loopback services (the fleet's Redis, `cairn web`) stay out of its reach as they
 * are out of the commands' reach: neither a launch by the model nor a request the page makes
 * itself connects. allowLocalhost shares the machine's network with both, the control.
 */
const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const sh = (command: string) => call("execute_command", { command, requires_approval: false });
const browse = (url: string) => call("browser_action", { action: "launch", url });
const done = call("attempt_completion", { result: "done" });
const settings = (sandbox: Record<string, unknown>) => writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false, sandbox }));

async function run(turns: ScriptedTurn[]) {
  fx.server = await startScriptedModelServer({ turns });
  // A model without images gets each page's text, so what the browser saw is text in the next request.
  const result = await runCairn(
    ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--model", "text-only-model", "--cwd", fx.workspace.dir, "--json", "--auto-approve", "all-commands,read,browser", "go"],
    { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }), timeoutMs: 120_000 },
  );
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** What the model was told after its call in turn `i` (0-based). */
const toldAfter = (i: number) => JSON.stringify((fx.server.requests[i + 1]!.body as { messages: unknown[] }).messages.at(-1));

/** A port inside the commands' namespace: nothing else listens there, whatever this machine runs on it. */
const DEV_PORT = 4180;

describe("browser_action in the sandbox's network", () => {
  /** Stands for the fleet's Redis or `cairn web` on this machine's loopback: counts every connection. */
  let service: Server;
  let servicePort = 0;
  let connections: string[] = [];
  beforeEach(async () => {
    connections = [];
    service = createServer((req, res) => {
      connections.push(req.url ?? "?");
      res.end("HOST-SERVICE-ANSWERED");
    });
    await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
    servicePort = (service.address() as AddressInfo).port;
  });
  afterEach(() => new Promise<void>((resolve) => service.close(() => resolve())));

  /** The dev server a command starts in the background; its page also asks the host's service itself. */
  const devServer = () => {
    const page = `<!doctype html><title>Dev</title><h1>DEV-SERVER-IN-SANDBOX</h1><script>fetch('http://127.0.0.1:${servicePort}/from-page').then(() => console.log('PAGE-REACHED-HOST'), () => console.log('PAGE-FETCH-FAILED'))</script>`;
    writeFileSync(path.join(fx.workspace.dir, "dev.js"), `require("http").createServer((q, r) => { r.setHeader("content-type", "text/html"); r.end(${JSON.stringify(page)}); }).listen(${DEV_PORT}, "127.0.0.1");\n`);
    return sh("node dev.js > /dev/null 2>&1 &");
  };
  /** Waits until the dev server answers the commands' localhost (a condition, not a fixed time). */
  const untilServing = call("execute_command", {
    command: `for i in $(seq 1 300); do node -e "fetch('http://localhost:${DEV_PORT}/').then(r => r.text()).then(t => { console.log('SERVING', t.includes('DEV-SERVER-IN-SANDBOX')); process.exit(0) }, () => process.exit(1))" && break; sleep 0.2; done`,
    requires_approval: false,
    // Waited for to the end, however quiet, even on a busy machine.
    timeout: 120,
  });

  it("opens the dev server a command started on localhost; neither the model's launches nor the page's own request reach this machine's loopback (0 connections)", async () => {
    await run([
      devServer(),
      untilServing,
      browse(`http://localhost:${DEV_PORT}/`),
      browse(`http://127.0.0.1:${servicePort}/launched`),
      browse(`http://localhost:${servicePort}/launched`),
      call("browser_action", { action: "close" }),
      done,
    ]);
    expect(toldAfter(1)).toContain("SERVING true");
    // Positive: the page the command's server serves, as the model sees it, with its console.
    const dev = toldAfter(2);
    expect(dev).toContain("DEV-SERVER-IN-SANDBOX");
    expect(dev).toContain("PAGE-FETCH-FAILED");
    expect(dev).not.toContain("PAGE-REACHED-HOST");
    // Attack: the host's loopback service, by address and by name.
    for (const i of [3, 4]) {
      expect(toldAfter(i)).toContain("Could not open");
      expect(toldAfter(i)).not.toContain("HOST-SERVICE-ANSWERED");
    }
    expect(connections).toEqual([]);
  }, 180_000);

  it("control: with allowLocalhost the browser shares this machine's network and reaches the same service", async () => {
    settings({ allowLocalhost: true });
    await run([browse(`http://127.0.0.1:${servicePort}/launched`), call("browser_action", { action: "close" }), done]);
    expect(toldAfter(0)).toContain("HOST-SERVICE-ANSWERED");
    expect(connections).toContain("/launched");
  }, 120_000);
});
