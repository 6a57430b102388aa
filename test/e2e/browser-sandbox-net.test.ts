import { spawn } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cairnBin, cleanEnv, runCairn } from "../support/cairn-cli.js";
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

/** Outside the workspace and outside /tmp (which the sandbox replaces with a private one). */
let outside: string;
beforeEach(() => {
  outside = mkdtempSync("/var/tmp/cairn-browser-net-");
});
afterEach(() => rmSync(outside, { recursive: true, force: true }));

// A model without images gets each page's text, so what the browser saw is text in the next request.
const cliArgs = () => ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--model", "text-only-model", "--cwd", fx.workspace.dir, "--json", "--auto-approve", "all-commands,read,browser", "go"];

async function run(turns: ScriptedTurn[], env: Record<string, string> = {}) {
  fx.server = await startScriptedModelServer({ turns });
  const result = await runCairn(cliArgs(), { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir, ...env }), timeoutMs: 120_000 });
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

describe("browser_action when the sandbox's network cannot start", () => {
  it("refuses the launch with one line saying why and what the person can do; the browser does not open the page on this machine's network instead", async () => {
    let hits = 0;
    const service = createServer((_req, res) => {
      hits += 1;
      res.end("HOST-SERVICE-ANSWERED");
    });
    await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
    try {
      // slirp4netns is there but fails, as where the TUN device is refused.
      const bin = path.join(outside, "bin");
      mkdirSync(bin);
      writeFileSync(path.join(bin, "slirp4netns"), "#!/bin/sh\necho 'open(\"/dev/net/tun\"): Permission denied' >&2\nexit 1\n", { mode: 0o755 });
      await run([browse(`http://127.0.0.1:${(service.address() as AddressInfo).port}/`), done], { PATH: `${bin}:${process.env.PATH}` });
      const told = toldAfter(0);
      expect(told).toMatch(/Could not start the browser: the sandbox's network could not start \(slirp4netns failed: open\(\\"\/dev\/net\/tun\\"\): Permission denied\)\. Ask the person to fix it, or to set \\"sandbox\\": \{\\"allowLocalhost\\": true\}/);
      expect(told).not.toContain("HOST-SERVICE-ANSWERED");
      expect(hits).toBe(0);
    } finally {
      await new Promise<void>((resolve) => service.close(() => resolve()));
    }
  }, 120_000);
});

describe("browser_action and names where the host's resolver is on its loopback", () => {
  /** An answer to an A query: the question echoed, one address; any other type gets no answer. */
  function answer(query: Buffer, address: number[]): Buffer {
    let end = 12;
    while (query[end] !== 0) end += query[end]! + 1;
    end += 5;
    const isA = query.readUInt16BE(end - 4) === 1;
    const header = Buffer.from(query.subarray(0, 12));
    header.writeUInt16BE(0x8180, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(isA ? 1 : 0, 6);
    header.writeUInt32BE(0, 8);
    const record = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...address]);
    return Buffer.concat([header, query.subarray(12, end), ...(isA ? [record] : [])]);
  }

  /** The machine's own address on its network: what a name on the outside resolves to here. */
  const ownAddress = () => {
    const address = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a?.family === "IPv4" && !a.internal);
    expect(address, "this test needs a network interface besides loopback").toBeDefined();
    return address!.address;
  };

  let resolver: Socket;
  let site: Server;
  let asked = 0;
  beforeEach(async () => {
    asked = 0;
    const own = ownAddress().split(".").map(Number);
    // The host's resolver, on its loopback as systemd-resolved's 127.0.0.53 is (not sandbox.test's 127.0.0.77).
    resolver = createSocket("udp4");
    resolver.on("message", (message, from) => {
      asked += 1;
      resolver.send(answer(message, own), from.port, from.address);
    });
    await new Promise<void>((resolve) => resolver.bind(53, "127.0.0.78", resolve));
    // A site "on the outside": reachable at the machine's own address, as from the network.
    site = createServer((_req, res) => res.end("<title>Docs</title><p>NAMED-SITE-ANSWERED</p>"));
    await new Promise<void>((resolve) => site.listen(0, "0.0.0.0", resolve));
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => resolver.close(() => resolve()));
    await new Promise<void>((resolve) => site.close(() => resolve()));
  });

  it("the browser resolves names through slirp4netns's forwarder, as commands do, and opens the site", async () => {
    expect(process.getuid?.(), "a mount namespace with another resolv.conf needs root, as on CI").toBe(0);
    fx.server = await startScriptedModelServer({
      turns: [browse(`http://cairn-browser-dns.example:${(site.address() as AddressInfo).port}/`), call("browser_action", { action: "close" }), done],
    });
    const resolvConf = path.join(outside, "resolv.conf");
    writeFileSync(resolvConf, "nameserver 127.0.0.78\n");
    // `cairn run` in a mount namespace whose /etc/resolv.conf names only the resolver on the host's loopback.
    const child = spawn("unshare", ["--mount", "sh", "-c", 'mount --bind "$0" /etc/resolv.conf && exec "$@"', resolvConf, process.execPath, cairnBin, ...cliArgs()], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(0);
    expect(toldAfter(0)).toContain("NAMED-SITE-ANSWERED");
    expect(asked).toBeGreaterThan(0);
  }, 120_000);
});
