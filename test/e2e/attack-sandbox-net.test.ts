import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startRedisServer, type RedisServer } from "../support/redis-server.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

/**
 * What bubblewrap alone leaves reachable from a sandboxed command, through the real CLI on real
 * bubblewrap: the kernel keyring (the seccomp filter), and with network on (the default) the
 * servers on this machine's loopback: the fleet's Redis, `cairn web`'s port (the isolated network).
 * The model's commands are the attacker and are approved, so only the sandbox can stop them; each
 * attack checks its effect, and a control shows the same command works where the person allows it.
 */
const fx = useE2eFixture((fx) => {
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const sh = (command: string) => call("execute_command", { command, requires_approval: false });
const done = call("attempt_completion", { result: "done" });
const settings = (sandbox: Record<string, unknown>) => writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false, sandbox }));

async function run(turns: ScriptedTurn[], args: string[] = []) {
  fx.server = await startScriptedModelServer({ turns });
  const result = await runCairn(
    ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", "--auto-approve", "all-commands,read,edit", ...args, "go"],
    { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir }), timeoutMs: 60_000 },
  );
  expect(result.code, result.stderr).toBe(0);
  return result;
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

describe("the kernel keyring", () => {
  /**
   * Keys are kept per user and per session, not per namespace: the host puts one in its user
   * keyring and one in its user-session keyring (the session keyring of every process of the user
   * that has none of its own: Cairn's and its commands').
   */
  const KEYCTL = `
import ctypes, platform, sys
libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, REQUEST_KEY, KEYCTL = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}[platform.machine()]
def keyctl(*args):
    r = libc.syscall(KEYCTL, *args)
    return r if r >= 0 else "errno %d" % ctypes.get_errno()
`;
  const ADD = `${KEYCTL}
for ring, desc, payload in ((-4, sys.argv[1], sys.argv[2]), (-5, sys.argv[3], sys.argv[4])):
    r = libc.syscall(ADD_KEY, b"user", desc.encode(), payload.encode(), len(payload), ctypes.c_int(ring))
    if r < 0: sys.exit("add_key failed: errno %d" % ctypes.get_errno())
    print(r)
`;
  /** Every route to a key's payload: search each keyring, request_key, read by serial, and what it describes. */
  const STEAL = `${KEYCTL}
def read(serial):
    buf = ctypes.create_string_buffer(256)
    n = libc.syscall(KEYCTL, 11, ctypes.c_int(serial), buf, 256)
    return buf.raw[:n].decode() if n >= 0 else "errno %d" % ctypes.get_errno()
def describe(serial):
    buf = ctypes.create_string_buffer(256)
    n = libc.syscall(KEYCTL, 6, ctypes.c_int(serial), buf, 256)
    return buf.value.decode().replace("-", "_") if n >= 0 else "errno %d" % ctypes.get_errno()
serials = [int(s) for s in sys.argv[3:]]
for desc in sys.argv[1:3]:
    for ring in (-4, -3, -5, -2, -1):
        found = libc.syscall(KEYCTL, 10, ctypes.c_int(ring), b"user", desc.encode(), 0)
        if found >= 0: serials.append(found)
        print("search", ring, found if found >= 0 else "errno %d" % ctypes.get_errno())
    found = libc.syscall(REQUEST_KEY, b"user", desc.encode(), None, 0)
    if found >= 0: serials.append(found)
    print("request_key", found if found >= 0 else "errno %d" % ctypes.get_errno())
for serial in serials:
    print("READ", read(serial), "DESCRIBED", describe(serial))
for ring in (-4, -3):
    print("ring", ring, keyctl(0, ctypes.c_int(ring), 0), "described", describe(ring))
`;
  const USER_SECRET = "USER-KEYRING-SECRET-MUST-NOT-LEAK";
  const SESSION_SECRET = "SESSION-KEYRING-SECRET-MUST-NOT-LEAK";
  const tag = `${process.pid}-${Date.now().toString(36)}`;
  // Described in a form no command text contains: /proc/keys and KEYCTL_DESCRIBE output is checked for it with - turned to _.
  const userDesc = `cairn-attack-user-${tag}`;
  const sessionDesc = `cairn-attack-session-${tag}`;
  let serials: string[] = [];

  beforeEach(() => {
    serials = execFileSync("python3", ["-c", ADD, userDesc, USER_SECRET, sessionDesc, SESSION_SECRET], { encoding: "utf8" }).trim().split("\n");
    writeFileSync(path.join(fx.workspace.dir, "steal.py"), STEAL);
  });
  afterEach(() => {
    // KEYCTL_INVALIDATE: the kernel removes them at once.
    execFileSync("python3", ["-c", `${KEYCTL}\nfor s in sys.argv[1:]: keyctl(21, ctypes.c_int(int(s)))`, ...serials]);
  });

  it("no route (keyctl search/read/describe, request_key, /proc/keys) reads the user's or the session's keys; with --sandbox off the same command reads both", async () => {
    const steal = `python3 steal.py ${userDesc} ${sessionDesc} ${serials.join(" ")}; echo PROC-KEYS; sed 's/-/_/g' /proc/keys /proc/key-users; echo END`;
    const result = await run([sh(steal), done]);
    const told = toldAfter(0);
    expect(told).toContain("END");
    for (const secret of [USER_SECRET, SESSION_SECRET]) {
      expect(result.stdout).not.toContain(secret);
      expect(everyRequest()).not.toContain(secret);
      expect(homeText()).not.toContain(secret);
    }
    for (const desc of [userDesc, sessionDesc]) expect(told).not.toContain(desc.replace(/-/g, "_"));
    expect(told).toMatch(/request_key errno 1/);
    expect(told).toMatch(/READ errno 1/);

    // Control: without the sandbox the same command finds, reads and lists both keys.
    await run([sh(steal), done], ["--sandbox", "off"]);
    const open = toldAfter(0);
    expect(open).toContain(`READ ${USER_SECRET}`);
    expect(open).toContain(`READ ${SESSION_SECRET}`);
    expect(open).toMatch(new RegExp(`PROC-KEYS[\\s\\S]*${userDesc.replace(/-/g, "_")}`));
  }, 120_000);

  it("node, npm, git and python still work under the filter", async () => {
    const command = `node -e "console.log('NODE-' + (6 * 7))" && npm --version && git init -q repo && git -C repo status --short && python3 -c "print('PY-' + str(6 * 7))" && echo ALL-RAN`;
    await run([sh(command), done]);
    expect(toldAfter(0)).toMatch(/NODE-42[\s\S]*PY-42[\s\S]*ALL-RAN/);
  }, 90_000);
});

describe("Cairn's control planes with network on", () => {
  let redis: RedisServer;
  let redisDir: string;
  let web: Server;
  let webPort = 0;
  let connections: string[] = [];
  beforeEach(async () => {
    redisDir = mkdtempSync(path.join(os.tmpdir(), "cairn-attack-redis-"));
    redis = await startRedisServer(redisDir);
    connections = [];
    // Stands for `cairn web`: on every address, so the same listener answers on the machine's own network address.
    web = createServer((socket) => {
      connections.push(socket.localAddress ?? "?");
      socket.end("WEB-ANSWERED\n");
    });
    await new Promise<void>((resolve) => web.listen(0, "0.0.0.0", resolve));
    webPort = (web.address() as AddressInfo).port;
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => web.close(() => resolve()));
    await redis.stop();
    rmSync(redisDir, { recursive: true, force: true });
  });

  const redisGet = (key: string) => execFileSync("redis-cli", ["-p", String(redis.port), "GET", key], { encoding: "utf8" }).trim();
  /** A job written straight into the fleet's queue, as raw RESP (the first red team's attack). */
  const pushJob = () =>
    `node -e "const s = require('net').connect(${redis.port}, '127.0.0.1'); s.on('connect', () => s.write('*3\\r\\n\\$3\\r\\nSET\\r\\n\\$6\\r\\npwned1\\r\\n\\$3\\r\\nyes\\r\\n')); s.on('data', d => { console.log('REDIS-SAID', String(d).trim()); s.end(); }); s.on('error', e => console.log('REDIS-FAILED', e.code))"`;
  const connect = (host: string, label: string) =>
    `node -e "require('net').connect(${webPort}, '${host}').on('data', d => console.log('${label}-GOT', String(d).trim())).on('error', e => console.log('${label}-FAILED', e.code))"`;
  /** The machine's own address on its network: not loopback, so the outside-facing path. */
  const ownAddress = () => {
    const address = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a?.family === "IPv4" && !a.internal);
    expect(address, "this test needs a network interface besides loopback").toBeDefined();
    return address!.address;
  };

  it("a command can neither write a job into Redis on 127.0.0.1 nor reach a server on the loopback (0 connections), while the machine's network address answers; allowLocalhost lets both through", async () => {
    const own = ownAddress();
    const commands = [pushJob(), connect("127.0.0.1", "LOOPBACK"), connect("localhost", "LOCALHOST"), connect(own, "OUTSIDE")];
    await run([...commands.map(sh), done]);
    expect(toldAfter(0)).toContain("REDIS-FAILED");
    expect(redisGet("pwned1")).toBe("");
    expect(toldAfter(1)).toContain("LOOPBACK-FAILED");
    expect(toldAfter(2)).toContain("LOCALHOST-FAILED");
    expect(toldAfter(1) + toldAfter(2)).not.toContain("WEB-ANSWERED");
    // The outside-facing path works: the same listener, reached at the machine's network address.
    expect(toldAfter(3)).toContain("OUTSIDE-GOT WEB-ANSWERED");
    expect(connections).toEqual([own]);
    // The model is told why localhost is out of reach.
    expect(JSON.stringify(fx.server.requests[0]!.body)).toContain("servers on this machine's localhost are out of reach");

    // Control: the person's opt-in shares the machine's network, loopback servers included.
    connections = [];
    settings({ allowLocalhost: true });
    await run([sh(pushJob()), sh(connect("127.0.0.1", "LOOPBACK")), done]);
    expect(toldAfter(0)).toContain("REDIS-SAID +OK");
    expect(redisGet("pwned1")).toBe("yes");
    expect(toldAfter(1)).toContain("LOOPBACK-GOT WEB-ANSWERED");
    expect(connections).toEqual(["127.0.0.1"]);
  }, 120_000);

  it("commands of one task reach each other's servers on their own loopback (a dev server started in the background)", async () => {
    const serve = `node -e "require('http').createServer((q, r) => r.end('DEV-SERVER-ANSWERED')).listen(4173, '127.0.0.1', () => console.log('listening'))" > /dev/null 2>&1 &`;
    const ask = `for i in $(seq 1 100); do node -e "fetch('http://127.0.0.1:4173/').then(r => r.text()).then(t => { console.log(t); process.exit(0) }, () => process.exit(1))" && break; sleep 0.2; done`;
    await run([sh(serve), sh(ask), done]);
    expect(toldAfter(1)).toContain("DEV-SERVER-ANSWERED");
  }, 90_000);
});
