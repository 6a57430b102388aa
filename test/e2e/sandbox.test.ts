import { spawn } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serverEntry } from "../../packages/core/src/mcp/test-servers.js";
import { cairnBin, cleanEnv, runCairn, startCairn, tempDir } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

/**
 * The OS sandbox on real bubblewrap, through the real CLI. The model's commands are the attacker:
 * each one is approved (--yolo or all-commands) so that only the sandbox can stop it, and each
 * attack has a control showing the same command works where the sandbox allows it.
 */
const fx = useE2eFixture((fx) => {
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
});

/** Outside the workspace and outside /tmp (which the sandbox replaces with a private one). */
let outside: string;
beforeEach(() => {
  outside = mkdtempSync("/var/tmp/cairn-outside-");
});
afterEach(() => rmSync(outside, { recursive: true, force: true }));

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const sh = (command: string) => call("execute_command", { command, requires_approval: false });
const done = call("attempt_completion", { result: "done" });

type RunOptions = { env?: Record<string, string>; args?: string[] };
function run(turns: ScriptedTurn[], options: RunOptions = {}) {
  return (async () => {
    fx.server = await startScriptedModelServer({ turns });
    return runCairn(
      ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", "--auto-approve", "all-commands,read,edit", ...(options.args ?? []), "go"],
      { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir, ...options.env }), timeoutMs: 60_000 },
    );
  })();
}

/** What the model was told after its call in turn `i` (0-based). */
const toldAfter = (i: number) => JSON.stringify((fx.server.requests[i + 1]!.body as { messages: unknown[] }).messages.at(-1));
const everyRequest = () => fx.server.requests.map((r) => JSON.stringify(r.body)).join("\n");

/** Every file under CAIRN_HOME (the task's journal, conversation and command logs), as one text. */
function homeText(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else texts.push(readFileSync(full, "latin1"));
    }
  };
  walk(fx.home.dir);
  return texts.join("\n");
}

function expectNowhere(secret: string, result: { stdout: string; stderr: string }): void {
  expect(result.stdout).not.toContain(secret);
  expect(everyRequest()).not.toContain(secret);
  expect(homeText()).not.toContain(secret);
}

describe("writes", () => {
  it("blocks a write outside the workspace and says why; the same write inside works, and outside with --sandbox off", async () => {
    const marker = path.join(outside, "marker");
    const result = await run([sh(`echo planted > ${marker}`), sh("echo kept > inside.txt"), sh("echo private > /tmp/cairn-sandbox-probe"), done]);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(toldAfter(0)).toMatch(/Read-only file system/);
    expect(toldAfter(0)).toMatch(/sandbox blocked a write.*--sandbox off/);
    expect(readFileSync(path.join(fx.workspace.dir, "inside.txt"), "utf8")).toBe("kept\n");
    expect(toldAfter(1)).not.toMatch(/sandbox blocked/);
    // /tmp is writable but private: nothing reaches the host's /tmp.
    expect(toldAfter(2)).toContain("Exit code: 0");
    expect(existsSync("/tmp/cairn-sandbox-probe")).toBe(false);

    const init = result.events.find((e) => e.type === "system" && e.subtype === "init")!;
    expect(init.sandbox).toEqual({ mode: "workspace-write", network: "on", engine: "bubblewrap" });
    expect(JSON.stringify(fx.server.requests[0]!.body)).toContain(
      "Commands run in a sandbox: you can write only inside the workspace and /tmp; network is on, to the outside only (servers on this machine's localhost are out of reach).",
    );

    const off = await run([sh(`echo planted > ${marker}`), done], { args: ["--sandbox", "off"] });
    expect(off.code, off.stderr).toBe(0);
    expect(readFileSync(marker, "utf8")).toBe("planted\n");
    expect(off.events.find((e) => e.type === "system" && e.subtype === "init")!.sandbox).toMatchObject({ mode: "off" });
    expect(JSON.stringify(fx.server.requests[0]!.body)).not.toContain("Commands run in a sandbox");
  }, 90_000);

  it("read-only (from CAIRN_SANDBOX) blocks writes in the workspace too; the ignore file itself is read-only in workspace-write", async () => {
    writeFileSync(path.join(fx.workspace.dir, ".cairnignore"), "secret.txt\n");
    const ro = await run([sh("echo x > new.txt"), done], { env: { CAIRN_SANDBOX: "read-only" } });
    expect(ro.code, ro.stderr).toBe(0);
    expect(existsSync(path.join(fx.workspace.dir, "new.txt"))).toBe(false);
    expect(toldAfter(0)).toMatch(/Read-only file system/);

    const rw = await run([sh(": > .cairnignore; echo x > new.txt"), done]);
    expect(rw.code, rw.stderr).toBe(0);
    expect(readFileSync(path.join(fx.workspace.dir, ".cairnignore"), "utf8")).toBe("secret.txt\n");
    expect(existsSync(path.join(fx.workspace.dir, "new.txt"))).toBe(true);
  }, 90_000);
});

describe("what commands can read", () => {
  it("masks files and folders matched by .cairnignore, under any name; other files read normally", async () => {
    const ws = fx.workspace.dir;
    writeFileSync(path.join(ws, ".env"), "API_TOKEN=IGNORED-SECRET-1\n");
    mkdirSync(path.join(ws, "private"));
    writeFileSync(path.join(ws, "private", "notes.txt"), "IGNORED-SECRET-2\n");
    mkdirSync(path.join(ws, "docs"));
    symlinkSync("../.env", path.join(ws, "docs", "cfg.txt"));
    writeFileSync(path.join(ws, "public.txt"), "PUBLIC-CONTENT\n");
    writeFileSync(path.join(ws, ".cairnignore"), ".env\nprivate/\n");
    const result = await run([
      sh(`cat .env; cat private/notes.txt; cat docs/cfg.txt; cat /proc/self/cwd/.env; cat ${ws}/.env; grep -r SECRET . ; cat public.txt`),
      done,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expectNowhere("IGNORED-SECRET-1", result);
    expectNowhere("IGNORED-SECRET-2", result);
    expect(toldAfter(0)).toContain("PUBLIC-CONTENT");
    // The files are untouched on the host.
    expect(readFileSync(path.join(ws, ".env"), "utf8")).toContain("IGNORED-SECRET-1");
  }, 60_000);

  it("hides ~/.ssh and CAIRN_HOME; with --sandbox off the same commands read them", async () => {
    const home = tempDir("person");
    try {
      mkdirSync(path.join(home.dir, ".ssh"));
      writeFileSync(path.join(home.dir, ".ssh", "id_ed25519"), "SSH-PRIVATE-KEY-MATERIAL\n");
      writeFileSync(path.join(home.dir, ".netrc"), "machine x password NETRC-PASSWORD\n");
      writeFileSync(path.join(fx.home.dir, "planted-in-home.txt"), "CAIRN-HOME-CONTENT\n");
      const command = `cat ~/.ssh/id_ed25519; cat $HOME/.netrc; ls ${fx.home.dir}; cat ${fx.home.dir}/planted-in-home.txt`;
      const result = await run([sh(command), done], { env: { HOME: home.dir } });
      expect(result.code, result.stderr).toBe(0);
      expect(toldAfter(0)).not.toContain("SSH-PRIVATE-KEY-MATERIAL");
      expect(toldAfter(0)).not.toContain("NETRC-PASSWORD");
      expect(toldAfter(0)).not.toContain("CAIRN-HOME-CONTENT");
      expect(toldAfter(0)).not.toContain("settings.json");

      const off = await run([sh(command), done], { env: { HOME: home.dir }, args: ["--sandbox", "off"] });
      expect(off.code, off.stderr).toBe(0);
      expect(toldAfter(0)).toContain("SSH-PRIVATE-KEY-MATERIAL");
      expect(toldAfter(0)).toContain("NETRC-PASSWORD");
      expect(toldAfter(0)).toContain("CAIRN-HOME-CONTENT");
    } finally {
      home.cleanup();
    }
  }, 90_000);

  it("cannot read the agent's environment (its provider key) through /proc; without the sandbox it could", async () => {
    const key = "sk-ant-PROVIDER-KEY-THAT-MUST-NOT-LEAK";
    const command = "cat /proc/$PPID/environ; tr '\\0' '\\n' < /proc/1/environ; for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done; env";
    const result = await run([sh(command), done], { env: { ANTHROPIC_API_KEY: key } });
    expect(result.code, result.stderr).toBe(0);
    expect(toldAfter(0)).toContain("CAIRN_TASK_ID"); // the command did read environments: its own
    expectNowhere(key, result);

    const off = await run([sh("tr '\\0' '\\n' < /proc/$PPID/environ"), done], { env: { ANTHROPIC_API_KEY: key }, args: ["--sandbox", "off"] });
    expect(off.code, off.stderr).toBe(0);
    expect(toldAfter(0)).toContain(key);
  }, 90_000);
});

/** Processes whose command line holds `marker`, seen from the host. */
function processesWith(marker: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe("processes", () => {
  it("setsid and nohup escapes run while the task runs and are gone when it ends", async () => {
    const seconds = `300.${process.pid}`;
    let aliveDuringTask: number[] = [];
    fx.server = await startScriptedModelServer({
      responder: (_request, index) => {
        if (index === 1) aliveDuringTask = processesWith(`sleep\0${seconds}`);
        return [sh(`setsid sleep ${seconds} & nohup sleep ${seconds} >/dev/null 2>&1 & echo started`), done][index] ?? done;
      },
    });
    const result = await runCairn(
      ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", "--yolo", "go"],
      { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }), timeoutMs: 60_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(aliveDuringTask).toHaveLength(2);
    expect(toldAfter(0)).toMatch(/still running in the background/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processesWith(`sleep\0${seconds}`)).toEqual([]);
  }, 60_000);
});

describe("processes when Cairn itself is killed", () => {
  it("kill -9 of cairn mid-command ends the command and what it started at once, before any resume", async () => {
    const seconds = `310.${process.pid}`;
    const late = path.join(fx.workspace.dir, "late.txt");
    fx.server = await startScriptedModelServer({ turns: [call("execute_command", { command: `setsid sleep ${seconds} & echo started > started.txt; sleep 3; echo late > ${late}`, requires_approval: false, timeout: 60 }), done] });
    const cairn = startCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", "--yolo", "go"], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
    });
    while (!existsSync(path.join(fx.workspace.dir, "started.txt"))) await new Promise((r) => setTimeout(r, 20));
    expect(processesWith(`sleep\0${seconds}`)).toHaveLength(1);
    cairn.child.kill("SIGKILL");
    await cairn.exited;
    await new Promise((r) => setTimeout(r, 300));
    expect(processesWith(`sleep\0${seconds}`)).toEqual([]);
    await new Promise((r) => setTimeout(r, 3_500));
    expect(existsSync(late)).toBe(false);
  }, 30_000);
});

describe("network", () => {
  let site: Server;
  let port: number;
  let hits = 0;
  beforeEach(async () => {
    hits = 0;
    site = createServer((_req, res) => {
      hits += 1;
      res.end("PONG-FROM-HOST");
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    port = (site.address() as AddressInfo).port;
  });
  afterEach(() => new Promise<void>((resolve) => site.close(() => resolve())));

  const fetchCommand = () => `node -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log('GOT', t), e => console.log('FAILED', e.cause?.code ?? e.message))"`;

  it('"network": "off" and "on" both keep a server on 127.0.0.1 out of reach; "allowLocalhost": true lets the same fetch through', async () => {
    for (const network of ["off", "on"]) {
      writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false, sandbox: { network } }));
      const result = await run([sh(fetchCommand()), done]);
      expect(result.code, result.stderr).toBe(0);
      expect(toldAfter(0)).toContain("FAILED");
      expect(toldAfter(0)).not.toContain("PONG-FROM-HOST");
      expect(hits).toBe(0);
      expect(JSON.stringify(fx.server.requests[0]!.body)).toContain(`network is ${network}`);
    }

    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false, sandbox: { network: "on", allowLocalhost: true } }));
    const allowed = await run([sh(fetchCommand()), done]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(toldAfter(0)).toContain("GOT PONG-FROM-HOST");
    expect(hits).toBe(1);
    expect(JSON.stringify(fx.server.requests[0]!.body)).toContain("network is on.");
  }, 90_000);

  it("without slirp4netns, network on shares the machine's network and says so in one line; --sandbox required refuses", async () => {
    // PATH with bubblewrap, nsenter, unshare, git and node, but no slirp4netns (outside /tmp, which commands see a private one of).
    const bin = { dir: path.join(outside, "bin") };
    mkdirSync(bin.dir);
    for (const program of ["bwrap", "nsenter", "unshare", "sh", "true", "node", "git"]) {
      const found = (process.env.PATH ?? "").split(":").map((dir) => path.join(dir, program)).find((file) => existsSync(file));
      symlinkSync(found!, path.join(bin.dir, program));
    }
    const shared = await run([sh(fetchCommand()), done], { env: { PATH: bin.dir } });
    expect(shared.code, shared.stderr).toBe(0);
    const lines = shared.stderr.split("\n").filter((l) => /slirp4netns/.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/commands share this machine's network, servers on localhost included: slirp4netns is not on PATH.*allowLocalhost/);
    expect(toldAfter(0)).toContain("GOT PONG-FROM-HOST");

    fx.server = await startScriptedModelServer({ turns: [sh("echo hi"), done] });
    const refused = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--sandbox", "required", "go"], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir, PATH: bin.dir }),
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/--sandbox required, but slirp4netns is not on PATH.*apt install slirp4netns/);
    expect(fx.server.requests).toHaveLength(0);
  }, 90_000);
});

describe("an isolated network that cannot start", () => {
  it("refuses each command with one line saying why and what the person can do; nothing runs on the host's network instead", async () => {
    // slirp4netns is there but fails, as where the TUN device is refused.
    const bin = path.join(outside, "bin");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "slirp4netns"), "#!/bin/sh\necho 'open(\"/dev/net/tun\"): Permission denied' >&2\nexit 1\n", { mode: 0o755 });
    const marker = path.join(outside, "ran");
    const result = await run([sh(`touch ${marker}`), done], { env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(toldAfter(0)).toMatch(
      /Not run: the sandbox's network could not start \(slirp4netns failed: open\(\\"\/dev\/net\/tun\\"\): Permission denied\)\. Ask the person to fix it, or to set \\"sandbox\\": \{\\"allowLocalhost\\": true\}/,
    );
  }, 60_000);
});

describe("name resolution in the isolated network", () => {
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

  let resolver: Socket;
  let asked = 0;
  beforeEach(async () => {
    asked = 0;
    resolver = createSocket("udp4");
    resolver.on("message", (message, from) => {
      asked += 1;
      resolver.send(answer(message, [192, 0, 2, 123]), from.port, from.address);
    });
    await new Promise<void>((resolve) => resolver.bind(53, "127.0.0.77", resolve));
  });
  afterEach(() => new Promise<void>((resolve) => resolver.close(() => resolve())));

  /** `cairn run` in a mount namespace whose /etc/resolv.conf names only a resolver on the host's loopback, as with systemd-resolved. */
  function runWithLoopbackResolver(turns: ScriptedTurn[]) {
    return (async () => {
      fx.server = await startScriptedModelServer({ turns });
      const resolvConf = path.join(outside, "resolv.conf");
      writeFileSync(resolvConf, "nameserver 127.0.0.77\n");
      const args = ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", "--auto-approve", "all-commands", "go"];
      const child = spawn("unshare", ["--mount", "sh", "-c", 'mount --bind "$0" /etc/resolv.conf && exec "$@"', resolvConf, process.execPath, cairnBin, ...args], {
        env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      return { code, stderr };
    })();
  }

  const lookup = `node -e "require('dns').lookup('cairn-dns-test.example', { family: 4 }, (e, a) => console.log(e ? 'FAILED ' + e.code : 'RESOLVED ' + a))"`;

  it("a host resolver on loopback (systemd-resolved's 127.0.0.53) is asked through slirp4netns's forwarder, so names resolve with network on; with allowLocalhost commands ask it directly", async () => {
    expect(process.getuid?.(), "a mount namespace with another resolv.conf needs root, as on CI").toBe(0);
    const isolated = await runWithLoopbackResolver([sh(lookup), done]);
    expect(isolated.code, isolated.stderr).toBe(0);
    expect(toldAfter(0)).toContain("RESOLVED 192.0.2.123");
    expect(asked).toBeGreaterThan(0);

    asked = 0;
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false, sandbox: { allowLocalhost: true } }));
    const shared = await runWithLoopbackResolver([sh(lookup), done]);
    expect(shared.code, shared.stderr).toBe(0);
    expect(toldAfter(0)).toContain("RESOLVED 192.0.2.123");
    expect(asked).toBeGreaterThan(0);
  }, 90_000);
});

describe("stdio MCP servers", () => {
  it("the filesystem server, given the workspace, cannot read an ignored file; with \"sandbox\": false it can", async () => {
    const ws = fx.workspace.dir;
    writeFileSync(path.join(ws, ".env"), "MCP-IGNORED-SECRET\n");
    writeFileSync(path.join(ws, "readme.md"), "MCP-PUBLIC-CONTENT\n");
    writeFileSync(path.join(ws, ".cairnignore"), ".env\n");
    const configure = (sandbox?: boolean) =>
      writeFileSync(
        path.join(fx.home.dir, "mcp_settings.json"),
        JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [serverEntry.filesystem(), ws], ...(sandbox === undefined ? {} : { sandbox }) } } }),
      );
    const read = (file: string) => call("use_mcp_tool", { server_name: "files", tool_name: "read_text_file", arguments: { path: path.join(ws, file) } });

    configure();
    const boxed = await run([read(".env"), read("readme.md"), done], { args: ["--auto-approve", "mcp"] });
    expect(boxed.code, boxed.stderr).toBe(0);
    expectNowhere("MCP-IGNORED-SECRET", boxed);
    expect(toldAfter(1)).toContain("MCP-PUBLIC-CONTENT");

    configure(false);
    const open = await run([read(".env"), done], { args: ["--auto-approve", "mcp"] });
    expect(open.code, open.stderr).toBe(0);
    expect(toldAfter(0)).toContain("MCP-IGNORED-SECRET");
  }, 90_000);
});

describe("without bubblewrap", () => {
  it("--sandbox required exits 2 with one line saying what to install", async () => {
    fx.server = await startScriptedModelServer({ turns: [sh("echo hi"), done] });
    const result = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--sandbox", "required", "go"], {
      env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir, PATH: "/nonexistent" }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/--sandbox required.*bwrap.*not on PATH.*apt install bubblewrap/);
    expect(fx.server.requests).toHaveLength(0);
  });

  it("the default falls back to approval rules with one line on stderr", async () => {
    const marker = path.join(outside, "marker");
    const result = await run([sh(`echo fell-back > ${marker}`), done], { env: { PATH: "/nonexistent" } });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split("\n").filter((l) => /sandbox/i.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/without the OS sandbox.*bubblewrap \(bwrap\) is not on PATH/);
    expect(readFileSync(marker, "utf8")).toBe("fell-back\n");
    expect(result.events.find((e) => e.type === "system" && e.subtype === "init")!.sandbox).toEqual({ mode: "off", reason: "bubblewrap (bwrap) is not on PATH" });
  });
});
