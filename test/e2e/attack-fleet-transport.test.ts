import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, repoRoot, runCairn, startCairn, tempDir, type CliRun } from "../support/cairn-cli.js";
import { git, waitUntil, type JobView } from "../support/fleet-harness.js";
import { freePort } from "../support/redis-server.js";
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { goodHeaders, rawRequest, startWeb, type WebRun } from "../support/web-harness.js";

/**
 * The fleet's transport attacked, for real: a redis-server that wants a password and also speaks TLS
 * with a certificate from a CA made here (openssl), an ACL user, a second Redis with no password on
 * this machine's network address, `cairn fleet` commands and a `cairn fleet worker`, `cairn web`, and
 * whoever can write to Redis writing jobs (raw keys, or signed with the fleet's secret) whose
 * repository or ref is an option or a transport that runs a program, and a model whose text carries
 * terminal escape sequences. Checked by effect: marker files not created, passwords found in no
 * output or response, no raw control character on stdout; and each time the same action working
 * when it is allowed.
 */

const PASSWORD = "Rd-pass-4f7Q9x";
const ACL_USER = "fleetbot";
const ACL_PASSWORD = "Acl-pass-8Kz2m";
const WRONG_PASSWORD = "Wrong-pass-3Vt6y";
const SECRET = "9f1c2a7e4b3d5a6c8e0f1a2b3c4d5e6f9f1c2a7e4b3d5a6c8e0f1a2b3c4d5e6f";
/** A model's text as a hostile repository would make it say: clipboard write, screen clear, C1 CSI, DCS, lone ESC, \r overwrite, bidi. */
const HOSTILE = "before\x1b]52;c;Y2xpcGJvYXJk\x07 \x1b[2J\x1b[Hcleared \x9b31mc1 \x1bPdcs\x1b\\ lone\x1b; x\rOVERWRITE \u202eevil\u202c\ttab\nsecond line";
/** Characters that must never reach a terminal raw (tab and newline are text). */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/;

let root: ReturnType<typeof tempDir>;
let server: ScriptedModelServer;
let redis: ChildProcess;
let openRedis: ChildProcess;
let plainPort: number;
let tlsPort: number;
let openPort: number;
let hostIp: string;
let ca: string;
let repo: string;
/** HOME of every cairn here: its git config allows every transport, as a careless person's might. */
let home: string;
let worker: ReturnType<typeof startCairn>;
const outputs: string[] = [];
const seenJobs = new Set<string>();

const url = {
  plain: () => `redis://:${PASSWORD}@127.0.0.1:${plainPort}`,
  tlsAcl: () => `rediss://${ACL_USER}:${ACL_PASSWORD}@localhost:${tlsPort}`,
  tlsIp: () => `rediss://:${PASSWORD}@127.0.0.1:${tlsPort}`,
};

/** The environment of every cairn here; a variable given as "" is left out. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  const all = cleanEnv({
    HOME: home,
    CAIRN_REDIS_URL: url.tlsAcl(),
    NODE_EXTRA_CA_CERTS: ca,
    CAIRN_FLEET_SECRET: SECRET,
    CAIRN_PROVIDER: "anthropic",
    CAIRN_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "k",
    CAIRN_HOME: path.join(root.dir, "client-home"),
    CAIRN_FLEET_LOCK_MS: "3000",
    CAIRN_FLEET_BACKOFF_MS: "300",
    ...extra,
  });
  return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== ""));
}

/** A `cairn fleet` command; its output is kept, to be searched for passwords at the end. */
async function fleet(args: string[], extra: Record<string, string> = {}): Promise<CliRun> {
  const run = await runCairn(["fleet", ...args], { env: env(extra), timeoutMs: 30_000 });
  outputs.push(`$ cairn fleet ${args.join(" ")}\n${run.stdout}${run.stderr}`);
  return run;
}

const runFlags = () => ["--provider", "anthropic", "--base-url", server.url, "--auto-approve", "read,edit"];

async function add(name: string, task = `job=${name}: write ${name}.txt`): Promise<string> {
  const run = await fleet(["add", "--repo", repo, ...runFlags(), "--", task]);
  if (run.code !== 0) throw new Error(`cairn fleet add failed: ${run.stderr}`);
  return run.stdout.trim();
}

async function status(extra: Record<string, string> = {}): Promise<JobView[]> {
  const run = await fleet(["status", "--json"], extra);
  if (run.code !== 0) throw new Error(`cairn fleet status failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as JobView[];
}

async function waitForJob(id: string, done: (job: JobView) => boolean): Promise<JobView> {
  let last: JobView | undefined;
  await waitUntil(
    async () => {
      last = (await status()).find((j) => j.id === id);
      return last !== undefined && done(last);
    },
    90_000,
    () => `job ${id}: ${JSON.stringify(last)}\nworker:\n${worker.output().stdout}${worker.output().stderr}`,
    1000,
  );
  return last!;
}

function startRedis(args: string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const proc = spawn("redis-server", ["--save", "", "--appendonly", "no", "--daemonize", "no", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within 20 s:\n${out}`)), 20_000);
    proc.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve(proc);
      }
    });
    proc.on("exit", () => reject(new Error(`redis-server exited:\n${out}`)));
  });
}

/** This machine's first address that is not loopback: where a fleet's Redis listens for other machines. */
function networkAddress(): string {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  throw new Error("this machine has no IPv4 address besides loopback; the test needs one to stand for a Redis on another machine");
}

/** A model that answers each job by the name in its task ("job=<name>: …"), saying HOSTILE on the way; "stuck" jobs hang. */
function respond(request: RecordedRequest): ScriptedTurn {
  const text = JSON.stringify(request.body.messages ?? []);
  const name = /job=([\w-]+):/.exec(text)?.[1] ?? "unknown";
  seenJobs.add(name);
  const first = !(request.body.messages as Array<{ role: string }>).some((m) => m.role === "assistant");
  if (name.startsWith("stuck")) return { delayMs: 120_000, content: [{ type: "text", text: "too late" }] };
  if (first) return { content: [{ type: "text", text: HOSTILE }, { type: "tool_use", name: "write_to_file", input: { path: `${name}.txt`, content: `written by job ${name}\n` } }] };
  return { content: [{ type: "tool_use", name: "attempt_completion", input: { result: `done ${name}: ${HOSTILE}` } }] };
}

beforeAll(async () => {
  root = tempDir("fleet-transport");
  home = path.join(root.dir, "home");
  mkdirSync(home);
  writeFileSync(path.join(home, ".gitconfig"), "[protocol]\n\tallow = always\n[user]\n\tname = T\n\temail = t@t\n");
  hostIp = networkAddress();
  // A CA of our own and a server certificate it signed, for 127.0.0.1 and localhost.
  const tls = path.join(root.dir, "tls");
  mkdirSync(tls);
  ca = path.join(tls, "ca.crt");
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: tls, stdio: "pipe" });
  ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=cairn test CA");
  ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost");
  writeFileSync(path.join(tls, "san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "san.ext");

  [plainPort, tlsPort, openPort] = [await freePort(), await freePort(), await freePort()];
  redis = await startRedis([
    ...["--port", String(plainPort), "--tls-port", String(tlsPort), "--bind", "127.0.0.1", hostIp, "--requirepass", PASSWORD],
    ...["--tls-cert-file", path.join(tls, "server.crt"), "--tls-key-file", path.join(tls, "server.key"), "--tls-ca-cert-file", ca, "--tls-auth-clients", "no"],
  ]);
  openRedis = await startRedis(["--port", String(openPort), "--bind", hostIp, "--protected-mode", "no"]);
  const admin = new Redis(url.plain());
  await admin.call("ACL", "SETUSER", ACL_USER, "on", `>${ACL_PASSWORD}`, "~*", "&*", "+@all");
  admin.disconnect();

  server = await startScriptedModelServer({ responder: respond });
  repo = path.join(root.dir, "repo");
  mkdirSync(repo);
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(path.join(repo, "README.md"), "# repo\n");
  git(repo, "add", "-A");
  git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start");

  // The worker reaches Redis over TLS as the ACL user, trusting our CA through NODE_EXTRA_CA_CERTS.
  const workerHome = path.join(root.dir, "worker-home");
  mkdirSync(workerHome);
  worker = startCairn(["fleet", "worker", "--concurrency", "2", "--name", "w1"], { env: env({ CAIRN_HOME: workerHome }) });
  await waitUntil(() => worker.output().stdout.includes("ready"), 20_000, () => `the worker did not start:\n${worker.output().stdout}${worker.output().stderr}`);
}, 90_000);

afterAll(async () => {
  worker?.child.kill("SIGKILL");
  await worker?.exited;
  for (const proc of [redis, openRedis]) {
    if (!proc || proc.exitCode !== null) continue;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    await exited;
  }
  await server?.close();
  root?.cleanup();
});

const secrets = [PASSWORD, ACL_PASSWORD, WRONG_PASSWORD];
function expectNoPassword(text: string, where: string): void {
  for (const secret of secrets) expect(text.includes(secret), `${where} shows a password:\n${text}`).toBe(false);
}
function expectOneLine(run: CliRun, pattern: RegExp): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toMatch(pattern);
  expect(run.stderr.trim().split("\n"), run.stderr).toHaveLength(1);
  expectNoPassword(run.stdout + run.stderr, "the error");
}

describe("the fleet's Redis transport", { timeout: 240_000 }, () => {
  it("with a password, an ACL user and TLS from a private CA, every fleet command works; watch, status and result print the model's escape sequences as plain text", async () => {
    expect(worker.output().stdout).toContain(`rediss://***:***@localhost:${tlsPort}`);
    const id = await add("esc", `job=esc: write esc.txt \x1b]0;retitled\x07\x1b[2J`);
    const done = await waitForJob(id, (j) => j.state === "completed");
    expect(done.result?.outcome).toBe("success");
    expect(git(repo, "show", `cairn/${id}:esc.txt`)).toBe("written by job esc\n");

    // watch over plain TCP with the password, result and status over TLS with the IP in the certificate.
    const watch = await fleet(["watch", id], { CAIRN_REDIS_URL: url.plain() });
    expect(watch.code, watch.stderr).toBe(0);
    const result = await fleet(["result", id], { CAIRN_REDIS_URL: url.tlsIp() });
    expect(result.code, result.stderr).toBe(0);
    const table = await fleet(["status"]);
    expect(table.code, table.stderr).toBe(0);
    for (const [name, run] of Object.entries({ watch, result, status: table })) {
      expect(run.stdout, `${name}: ${JSON.stringify(run.stdout)}`).not.toMatch(RAW_CONTROL);
      expect(run.stderr, name).not.toMatch(RAW_CONTROL);
    }
    // The words are all there, as text; the lines the output has stay lines.
    expect(watch.stdout).toMatch(/before\s*cleared/);
    expect(watch.stdout).toContain("OVERWRITE");
    expect(watch.stdout).toContain("evil\ttab");
    expect(watch.stdout).toMatch(/\nsecond line\n/);
    expect(watch.stdout).toMatch(/── completed: success, cairn\//);
    expect(result.stdout).toMatch(/^job [0-9a-f]+: completed \(success\)\n/);
    expect(result.stdout).toContain("done esc: before");
    expect(table.stdout.split("\n")[1]).toMatch(new RegExp(`^${id}\\s+completed\\s+success`));
    expect(table.stdout).toContain("job=esc: write esc.txt");

    // --json keeps every character, escaped: parsed back, the model's text is what it said.
    const json = await fleet(["watch", id, "--json"]);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    const said = json.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { type: string; message?: { content?: Array<{ text?: string }> } });
    expect(said.some((e) => e.type === "assistant" && e.message?.content?.some((c) => c.text?.includes("\x1b]52;c;")))).toBe(true);
    const statusJson = await fleet(["status", "--json"]);
    expect(statusJson.stdout).not.toMatch(RAW_CONTROL);
    expect((JSON.parse(statusJson.stdout) as JobView[]).find((j) => j.id === id)?.result?.answer).toContain(HOSTILE);
  });

  it("cancel and retry go through the same Redis, over TLS", async () => {
    const id = await add("stuck");
    await waitUntil(() => seenJobs.has("stuck"), 60_000, () => "the stuck job never reached the model");
    const cancel = await fleet(["cancel", id], { CAIRN_REDIS_URL: url.tlsIp() });
    expect(cancel.stdout).toContain(`${id}: cancelling`);
    await waitForJob(id, (j) => j.state === "cancelled");
    const retry = await fleet(["retry", id], { CAIRN_REDIS_URL: url.tlsIp() });
    expect(retry.stdout).toContain(`${id}: queued again`);
    expect((await fleet(["cancel", id])).code).toBe(0);
  });

  it("a missing or wrong password, an untrusted certificate, an unreachable Redis: one line each that says what to do, never the password", async () => {
    expectOneLine(await fleet(["status"], { CAIRN_REDIS_URL: `redis://127.0.0.1:${plainPort}` }), /wants a password.*redis:\/\/:password@host:port/);
    expectOneLine(await fleet(["status"], { CAIRN_REDIS_URL: `redis://:${WRONG_PASSWORD}@127.0.0.1:${plainPort}` }), /refused the user name or password in CAIRN_REDIS_URL/);
    expectOneLine(await fleet(["status"], { CAIRN_REDIS_URL: `rediss://${ACL_USER}:${WRONG_PASSWORD}@localhost:${tlsPort}` }), /refused the user name or password/);
    expectOneLine(await fleet(["status"], { NODE_EXTRA_CA_CERTS: "" }), /TLS certificate is not trusted.*NODE_EXTRA_CA_CERTS=/);
    expectOneLine(await fleet(["status"], { CAIRN_REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${tlsPort}` }), /cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1.*rediss:\/\//);
    expectOneLine(await fleet(["worker"], { CAIRN_REDIS_URL: `redis://:${WRONG_PASSWORD}@127.0.0.1:${plainPort}` }), /refused the user name or password/);
  });

  it("a Redis on another machine without a password is refused by every fleet command and cairn web, unless allowed; with a password it is used", async () => {
    const open = { CAIRN_REDIS_URL: `redis://${hostIp}:${openPort}` };
    for (const args of [["status"], ["add", "--repo", repo, ...runFlags(), "--", "job=open: x"], ["worker", "--name", "w9"], ["watch", "0123456789a"], ["result", "0123456789a"], ["cancel", "0123456789a"], ["retry", "0123456789a"]]) {
      const run = await fleet(args, open);
      expectOneLine(run, /is on another machine and CAIRN_REDIS_URL has no password.*CAIRN_FLEET_ALLOW_OPEN_REDIS=1/);
      expect(run.stderr, args[0]).toContain(`Redis at redis://${hostIp}:${openPort} is on another machine`);
    }
    // A password that is empty is none: the same refusal, whichever way the URL spells it.
    for (const url of [`redis://:@${hostIp}:${openPort}`, `redis://${hostIp}:${openPort}/?password=`, `redis://${hostIp}:${openPort}?password=&db=0`]) {
      const run = await fleet(["status"], { CAIRN_REDIS_URL: url });
      expectOneLine(run, /is on another machine and CAIRN_REDIS_URL has no password.*CAIRN_FLEET_ALLOW_OPEN_REDIS=1/);
    }
    // Nothing reached that Redis: no job was queued there.
    const probe = new Redis(`redis://${hostIp}:${openPort}`);
    expect(await probe.keys("*")).toEqual([]);
    probe.disconnect();

    const webHome = path.join(root.dir, "web-open");
    mkdirSync(webHome);
    const web = await startWeb(["--cwd", root.dir], { env: env({ ...open, CAIRN_HOME: webHome }), cwd: repoRoot });
    try {
      await waitUntil(() => web.stderr().includes("cairn: the Fleet view"), 20_000, () => `no notice about the fleet:\n${web.stderr()}`);
      expect(web.stderr()).toMatch(/the Fleet view waits for Redis: Redis at \S+ is on another machine .*CAIRN_FLEET_ALLOW_OPEN_REDIS=1/);
      const info = await rawRequest(web, { path: "/api/fleet", headers: goodHeaders(web) });
      expect(JSON.parse(info.body).error).toMatch(/is on another machine/);
      expect((await rawRequest(web, { path: "/api/fleet/jobs", headers: goodHeaders(web) })).status).toBe(503);
    } finally {
      await web.stop();
    }

    // The controls: allowed explicitly, the open Redis is used; with a password, no allowance is needed.
    const allowed = await fleet(["status"], { ...open, CAIRN_FLEET_ALLOW_OPEN_REDIS: "1" });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain("No jobs.");
    const withPassword = await fleet(["status"], { CAIRN_REDIS_URL: `redis://:${PASSWORD}@${hostIp}:${plainPort}` });
    expect(withPassword.code, withPassword.stderr).toBe(0);
    expect(withPassword.stdout).toContain("JOB");
  });

  it("cairn web over TLS with a password: its notice, the Fleet API and its errors never carry the password; a job's branch diff shows", async () => {
    const id = await add("webdiff");
    await waitForJob(id, (j) => j.state === "completed");
    const webHome = path.join(root.dir, "web-tls");
    mkdirSync(webHome);
    const web = await startWeb(["--cwd", root.dir], { env: env({ CAIRN_HOME: webHome }), cwd: repoRoot });
    const wrongHome = path.join(root.dir, "web-wrong");
    mkdirSync(wrongHome);
    const wrong = await startWeb(["--cwd", root.dir], { env: env({ CAIRN_HOME: wrongHome, CAIRN_REDIS_URL: `redis://:${WRONG_PASSWORD}@127.0.0.1:${plainPort}` }), cwd: repoRoot });
    try {
      // The notice comes once Redis answered (or did not).
      await waitUntil(() => web.stderr().includes("cairn: showing the fleet"), 20_000, () => `no notice about the fleet:\n${web.stderr()}`);
      expect(web.stderr()).toContain(`cairn: showing the fleet on rediss://***:***@localhost:${tlsPort}`);
      const bodies: string[] = [];
      for (const p of ["/api/fleet", "/api/fleet/jobs", `/api/fleet/jobs/${id}/diff`]) {
        const res = await rawRequest(web, { path: p, headers: goodHeaders(web) });
        expect(res.status, `${p}: ${res.body}`).toBe(200);
        bodies.push(res.body);
      }
      expect(JSON.parse(bodies[0]!).redis).toBe(`rediss://***:***@localhost:${tlsPort}`);
      expect(JSON.parse(bodies[1]!).jobs.map((j: { id: string }) => j.id)).toContain(id);
      const diff = JSON.parse(bodies[2]!).diff as { files: Array<{ path: string; new_text: string }> };
      expect(diff.files.find((f) => f.path === "webdiff.txt")?.new_text).toBe("written by job webdiff\n");
      const events = await rawRequest(web, { path: `/api/fleet/jobs/${id}/events`, headers: goodHeaders(web), readMs: 5000 });
      expect(events.body).toContain("attempt_completion");
      bodies.push(events.body);

      const info = await rawRequest(wrong, { path: "/api/fleet", headers: goodHeaders(wrong) });
      expect(JSON.parse(info.body).error).toMatch(/refused the user name or password/);
      const jobs = await rawRequest(wrong, { path: "/api/fleet/jobs", headers: goodHeaders(wrong) });
      expect(jobs.status).toBe(503);
      bodies.push(info.body, jobs.body);
      await waitUntil(() => wrong.stderr().includes("cairn: the Fleet view"), 20_000, () => `no notice about the fleet:\n${wrong.stderr()}`);
      expect(wrong.stderr()).toMatch(/the Fleet view waits for Redis: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+ refused/);
      for (const [i, body] of bodies.entries()) expectNoPassword(body, `response ${i}`);
      expectNoPassword(web.stdout() + web.stderr() + wrong.stdout() + wrong.stderr(), "cairn web's terminal");
    } finally {
      await web.stop();
      await wrong.stop();
    }
  });

  it("cairn web's diff of a job whose repository or branch in Redis is an option or a transport runs nothing on its machine", async () => {
    const markers = { uploadPack: path.join(root.dir, "MARK-web-upload-pack"), ext: path.join(root.dir, "MARK-web-ext"), branch: path.join(root.dir, "MARK-web-branch") };
    // Whoever writes to Redis writes a finished job: BullMQ's keys, raw.
    const writer = new Redis(url.plain());
    const plant = async (id: string, repository: string, branch: string) => {
      const now = Date.now();
      const data = { repo: repository, task: `job=${id}: planted`, run_flags: [], batch: "planted", added_at: now };
      const result = { outcome: "success", exit_code: 0, answer: "", branch, pushed_to: repository, files_changed: ["a"], tokens: { input: 1, output: 1 }, cost_usd: 0, worker: "w", attempt: 1, duration_ms: 1 };
      await writer.hset(`bull:cairn-fleet:${id}`, { name: "task", data: JSON.stringify(data), opts: "{}", timestamp: String(now), processedOn: String(now), finishedOn: String(now), returnvalue: JSON.stringify(result), atm: "1", ats: "1" });
      await writer.zadd("bull:cairn-fleet:completed", now, id);
    };
    await plant("aaaaaaaaa1", `--upload-pack=touch ${markers.uploadPack};`, "cairn/aaaaaaaaa1");
    await plant("aaaaaaaaa2", `ext::sh -c touch% ${markers.ext}`, "cairn/aaaaaaaaa2");
    await plant("aaaaaaaaa3", repo, `--upload-pack=touch ${markers.branch};`);
    writer.disconnect();

    const webHome = path.join(root.dir, "web-attack");
    mkdirSync(webHome);
    const web = await startWeb(["--cwd", root.dir], { env: env({ CAIRN_HOME: webHome, CAIRN_REDIS_URL: url.plain() }), cwd: repoRoot });
    try {
      const refused: Record<string, RegExp> = { aaaaaaaaa1: /starts with -/, aaaaaaaaa2: /transport helper/, aaaaaaaaa3: /not a fleet job's branch/ };
      for (const [id, why] of Object.entries(refused)) {
        const res = await rawRequest(web, { path: `/api/fleet/jobs/${id}/diff`, headers: goodHeaders(web) });
        expect(res.status, res.body).toBe(502);
        expect(JSON.parse(res.body).error).toMatch(why);
      }
      for (const marker of Object.values(markers)) expect(existsSync(marker), marker).toBe(false);
      // Control: a real job's diff still shows through the same web.
      const id = await add("control");
      await waitForJob(id, (j) => j.state === "completed");
      const ok = await rawRequest(web, { path: `/api/fleet/jobs/${id}/diff`, headers: goodHeaders(web) });
      expect(ok.status, ok.body).toBe(200);
      expect(JSON.parse(ok.body).diff.files[0].new_text).toBe("written by job control\n");
    } finally {
      await web.stop();
    }
    // Control: the payloads are live. The fetch cairn web ran before, and a clone under this HOME's git config, run them.
    const cache = path.join(root.dir, "control-cache.git");
    execFileSync("git", ["init", "-q", "--bare", cache]);
    const plainGit = (args: string[]) => {
      try {
        execFileSync("git", args, { cwd: cache, env: { ...process.env, HOME: home }, stdio: "pipe" });
      } catch {
        // the payload ran; git then fails to talk to it
      }
    };
    plainGit(["fetch", "--quiet", "--no-tags", "--depth", "2", `--upload-pack=touch ${markers.uploadPack};`, "+refs/heads/cairn/x:refs/fleet/x"]);
    plainGit(["clone", "--quiet", "--mirror", `ext::sh -c touch% ${markers.ext}`, path.join(root.dir, "control-ext")]);
    expect(existsSync(markers.uploadPack)).toBe(true);
    expect(existsSync(markers.ext)).toBe(true);
  });

  it("a worker given a signed job whose repository or ref is an option or a transport runs nothing, and fails the job with the reason", async () => {
    const { signJob } = (await import(path.join(repoRoot, "packages/cli/dist/fleet/job-signature.js"))) as { signJob: (secret: string, id: string, job: unknown) => string };
    const markers = { uploadPack: path.join(root.dir, "MARK-worker-upload-pack"), ext: path.join(root.dir, "MARK-worker-ext"), ssh: path.join(root.dir, "MARK-worker-ssh"), ref: path.join(root.dir, "MARK-worker-ref") };
    const hostile: Array<{ id: string; repo: string; ref?: string; why: RegExp }> = [
      { id: "bbbbbbbbb1", repo: `--upload-pack=touch ${markers.uploadPack};`, why: /starts with -/ },
      { id: "bbbbbbbbb2", repo: `ext::sh -c touch% ${markers.ext}`, why: /transport helper/ },
      { id: "bbbbbbbbb3", repo: `ssh://-oProxyCommand=touch%20${markers.ssh}/x`, why: /host or user that starts with -/ },
      { id: "bbbbbbbbb4", repo, ref: `--output=${markers.ref}`, why: /ref .* starts with -/ },
    ];
    const queue = new Queue("cairn-fleet", { connection: new Redis(url.plain(), { maxRetriesPerRequest: null }) });
    try {
      for (const job of hostile) {
        const data = { repo: job.repo, ...(job.ref ? { ref: job.ref } : {}), task: `job=evil-${job.id}: x`, run_flags: runFlags(), batch: "evil", added_at: Date.now() };
        await queue.add("task", { ...data, signature: signJob(SECRET, job.id, data) }, { jobId: job.id, attempts: 1 });
      }
    } finally {
      await queue.close();
    }
    for (const job of hostile) {
      const failed = await waitForJob(job.id, (j) => j.state === "failed");
      expect(failed.failed_reason, job.id).toMatch(job.why);
    }
    for (const marker of Object.values(markers)) expect(existsSync(marker), marker).toBe(false);
    expect([...seenJobs].filter((name) => name.startsWith("evil"))).toEqual([]);
    // Control: the same worker still runs a job on a real repository.
    const id = await add("after");
    expect((await waitForJob(id, (j) => j.state === "completed")).result?.outcome).toBe("success");
  });

  it("no password anywhere in what the fleet commands and the worker printed", () => {
    expect(outputs.length).toBeGreaterThan(20);
    for (const out of outputs) expectNoPassword(out, out.split("\n")[0]!);
    expectNoPassword(worker.output().stdout + worker.output().stderr, "the worker");
  });
});
