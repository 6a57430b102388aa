import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findNetworkPrograms, isolatedNetwork } from "../sandbox/isolated-network.js";
import { findProgram } from "../sandbox/probe.js";
import { startChromium, type BrowserNetwork, type Chromium } from "./chromium-process.js";

/**
 * Chromium started in the commands' network namespace (real slirp4netns, nsenter, bubblewrap and
 * Debian's Chromium): it reaches a server that lives only in the namespace and not this machine's
 * loopback; where the host's resolver is on its loopback, it reads the namespace's resolv.conf.
 */
const programs = findNetworkPrograms(process.env.PATH);
if (!programs.ok) throw new Error(`these tests need the sandbox's network: ${programs.missing} (${programs.fix})`);
const network = isolatedNetwork(programs);
const bwrap = findProgram("bwrap", process.env.PATH)!;
const DEV_PORT = 4190;

let devServer: ChildProcess;
let hostService: http.Server;
let hostPort = 0;
const hostConnections: string[] = [];
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "cairn-chromium-net-"));
  const entry = network.enter();
  if (!entry.ok) throw new Error(entry.reason);
  // A server only the namespace has: its loopback is not this machine's.
  devServer = spawn(entry.prefix[0]!, [...entry.prefix.slice(1), process.execPath, "-e", `require("http").createServer((q, r) => r.end("<title>Dev</title><p>IN-THE-NAMESPACE</p>")).listen(${DEV_PORT}, "127.0.0.1", () => console.log("up"))`], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    devServer.stdout!.once("data", () => resolve());
    devServer.once("exit", (code) => reject(new Error(`the namespace's server exited (${code})`)));
  });
  hostService = http.createServer((req, res) => {
    hostConnections.push(req.url ?? "?");
    res.end("<title>Host</title><p>HOST-LOOPBACK</p>");
  });
  await new Promise<void>((resolve) => hostService.listen(0, "127.0.0.1", resolve));
  hostPort = (hostService.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  devServer?.kill();
  await new Promise<void>((resolve) => hostService.close(() => resolve()));
  rmSync(tmp, { recursive: true, force: true });
});

async function withChromium(browserNetwork: BrowserNetwork, use: (chromium: Chromium) => Promise<void>): Promise<void> {
  const started = await startChromium({ network: browserNetwork, viewport: { width: 800, height: 600 }, timeoutMs: 60_000 });
  if (!started.ok) throw new Error(started.message);
  try {
    await use(started.chromium);
  } finally {
    await started.chromium.stop();
  }
}

async function textAt(chromium: Chromium, url: string): Promise<string> {
  const page = (await chromium.browser.pages())[0] ?? (await chromium.browser.newPage());
  try {
    await page.goto(url, { timeout: 30_000 });
  } catch (error) {
    return `FAILED ${(error as Error).message.split("\n")[0]}`;
  }
  return page.evaluate("document.body.innerText") as Promise<string>;
}

/** The browser process (not a renderer or helper) of a profile, by its command line. */
function browserPid(profileDir: string): number | undefined {
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (args.includes(`--user-data-dir=${profileDir}`) && !args.some((a) => a.startsWith("--type=")) && !args.some((a) => a.endsWith("bwrap"))) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

describe("Chromium in the commands' network namespace", () => {
  it("opens the namespace's localhost server, and not this machine's loopback (0 connections)", async () => {
    await withChromium({ enter: () => network.enter(), bwrap }, async (chromium) => {
      expect(await textAt(chromium, `http://localhost:${DEV_PORT}/`)).toContain("IN-THE-NAMESPACE");
      expect(await textAt(chromium, `http://127.0.0.1:${hostPort}/`)).toMatch(/^FAILED .*ERR_CONNECTION_REFUSED/);
      // Its network namespace is the commands' one.
      const pid = browserPid(chromium.profileDir);
      expect(pid).toBeDefined();
      expect(readlinkSync(`/proc/${pid}/ns/net`)).toBe(readlinkSync(`/proc/${devServer.pid}/ns/net`));
      expect(readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(readlinkSync("/proc/self/ns/net"));
    });
    expect(hostConnections).toEqual([]);
  }, 120_000);

  it("where the host's resolver is on its loopback, reads the namespace's resolv.conf (bound by bubblewrap) and still reaches the namespace's server", async () => {
    const resolvConf = path.join(tmp, "resolv.conf");
    writeFileSync(resolvConf, "nameserver 10.0.2.3\n# the namespace's forwarder\n");
    const withResolver: BrowserNetwork = {
      enter: () => {
        const entry = network.enter();
        return entry.ok ? { ...entry, resolvConf } : entry;
      },
      bwrap,
    };
    await withChromium(withResolver, async (chromium) => {
      expect(await textAt(chromium, `http://localhost:${DEV_PORT}/`)).toContain("IN-THE-NAMESPACE");
      const pid = browserPid(chromium.profileDir);
      expect(pid).toBeDefined();
      expect(readFileSync(`/proc/${pid}/root/etc/resolv.conf`, "utf8")).toContain("# the namespace's forwarder");
      // Everything else is the machine's own file system: the profile folder, written by Chromium, is there.
      expect(readdirSync(chromium.profileDir).length).toBeGreaterThan(0);
      expect(await textAt(chromium, `http://127.0.0.1:${hostPort}/`)).toMatch(/^FAILED .*ERR_CONNECTION_REFUSED/);
    });
    expect(hostConnections).toEqual([]);
  }, 120_000);
});
