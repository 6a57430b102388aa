import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, runCairn, startCairn, tempDir } from "../support/cairn-cli.js";
import { conversationRouter, firstMessageText } from "../support/conversation-router.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { goodHeaders, rawRequest, type WebRun } from "../support/web-harness.js";

/**
 * "Always allow for this task" survives the task being resumed (after it ended, or after its process
 * was killed right after the answer), and never reaches another task of the same workspace.
 */

type Frame = { task_id: string; event: { type: string; status?: string; tool_use_id?: string; approval?: { suggested_rule?: string } } };

let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer | undefined;
let web: (WebRun & { kill(): Promise<void> }) | undefined;
let pages: { url: string; hits: string[]; close(): Promise<void> };

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = (result: string): ScriptedTurn => call("attempt_completion", { result });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir });
const metadataFile = (id: string) => path.join(home.dir, "tasks", id, "metadata.json");

/** A site on 127.0.0.1 that says which page was asked for; /slow never answers (a fetch still running). */
async function startPages(): Promise<typeof pages> {
  const hits: string[] = [];
  const waiting: ServerResponse[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    if (req.url === "/slow") return void waiting.push(res);
    res.writeHead(200, { "Content-Type": "text/plain" }).end(`PAGE-CONTENT of ${req.url}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () => {
      for (const res of waiting) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** `cairn web` with the scripted model, which the test can also kill outright (SIGKILL: no clean end). */
async function startWeb(): Promise<NonNullable<typeof web>> {
  const cairn = startCairn(["web", "--provider", "anthropic", "--base-url", model!.url, "--cwd", ws.dir], { env: env() });
  const line = await cairn.waitForLine((l) => l.startsWith("Cairn is running at "), 20_000);
  const url = new URL(line.slice("Cairn is running at ".length).trim());
  const end = async (signal: NodeJS.Signals) => {
    if (cairn.child.exitCode === null && cairn.child.signalCode === null) cairn.child.kill(signal);
    const timer = setTimeout(() => cairn.child.kill("SIGKILL"), 10_000);
    await cairn.exited;
    clearTimeout(timer);
  };
  return {
    url: url.href,
    origin: url.origin,
    host: url.host,
    port: Number(url.port),
    token: new URLSearchParams(url.hash.slice(1)).get("token") ?? "",
    stdout: () => cairn.output().stdout,
    stderr: () => cairn.output().stderr,
    stop: () => end("SIGTERM"),
    kill: () => end("SIGKILL"),
  };
}

const post = (w: WebRun, p: string, body: unknown) => rawRequest(w, { method: "POST", path: p, headers: goodHeaders(w, { "Content-Type": "application/json" }), body: JSON.stringify(body) });

async function frames(w: WebRun): Promise<Frame[]> {
  const res = await rawRequest(w, { path: "/api/events", headers: goodHeaders(w), readMs: 200 });
  return res.body
    .split("\n\n")
    .filter((block) => block.includes("data: "))
    .map((block) => JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Frame);
}

async function until(w: WebRun, test: (all: Frame[]) => boolean, what: string, timeoutMs = 30_000): Promise<Frame[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = await frames(w);
    if (test(all)) return all;
    if (Date.now() > deadline) throw new Error(`never saw ${what}: ${JSON.stringify(all.map((f) => f.event.type))}`);
  }
}

/** The person, in the web app, starts FIRST-TASK and answers its fetch with "always allow for this task". */
async function allowForTask(turns: ScriptedTurn[], firstUrl: string): Promise<{ id: string; frames: Frame[] }> {
  model = await startScriptedModelServer({ responder: conversationRouter({ "FIRST-TASK": [call("web_fetch", { url: firstUrl }), ...turns] }).responder });
  web = await startWeb();
  const started = await post(web, "/api/tasks", { text: "FIRST-TASK: read the docs" });
  expect(started.status, started.body).toBe(201);
  const id = (JSON.parse(started.body) as { id: string }).id;
  const asked = (await until(web, (all) => all.some((f) => f.event.status === "awaiting_approval"), "the approval")).find((f) => f.event.status === "awaiting_approval")!;
  expect(asked.event.approval?.suggested_rule).toBe("web_fetch(127.0.0.1)");
  const answered = await post(web, `/api/tasks/${id}/approvals`, { tool_use_id: asked.event.tool_use_id, approved: true, remember: "task" });
  expect(answered.status, answered.body).toBe(200);
  return { id, frames: await frames(web) };
}

/** Headless, nobody to ask: the stored task is resumed and its model fetches `url`. */
async function resumeAndFetch(id: string, url: string) {
  await model?.close();
  model = await startScriptedModelServer({ responder: conversationRouter({ "FIRST-TASK": [call("web_fetch", { url }), done("RESUMED-DONE")] }).responder });
  const run = await runCairn(["resume", id, "go on", "--provider", "anthropic", "--base-url", model.url, "--json"], { env: env() });
  return { run, requests: model.requests.filter((r) => firstMessageText(r).includes("FIRST-TASK")) };
}

/** Headless: another task in the same workspace, whose model fetches `url`. */
async function otherTaskFetches(url: string) {
  await model?.close();
  model = await startScriptedModelServer({ responder: conversationRouter({ "OTHER-TASK": [call("web_fetch", { url }), done("OTHER-DONE")] }).responder });
  const run = await runCairn(["run", "--provider", "anthropic", "--base-url", model.url, "--cwd", ws.dir, "--json", "OTHER-TASK: read the docs too"], { env: env() });
  expect(run.code, run.stderr).toBe(0);
  return { run, requests: model.requests };
}

const body = (r: { body: unknown } | undefined) => JSON.stringify(r?.body ?? null);
const askedIn = (stdout: string) => stdout.split("\n").filter((l) => l.includes('"awaiting_approval"'));

beforeEach(async () => {
  ws = tempDir("task-rules-ws");
  home = tempDir("task-rules-home");
  writeFileSync(path.join(home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
  pages = await startPages();
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model?.close();
  model = undefined;
  await pages.close();
  ws.cleanup();
  home.cleanup();
});

describe("'always allow for this task' and resuming the task", () => {
  it("the task ends; resumed headless, the same site is fetched without asking; another task of the workspace is still refused it", async () => {
    const { id } = await allowForTask([done("FIRST-DONE")], `${pages.url}/first`);
    await until(web!, (all) => all.some((f) => f.event.type === "result"), "the result");
    await web!.stop();
    web = undefined;
    expect(pages.hits).toEqual(["/first"]);

    // The person can see what they allowed for the task.
    const shown = await runCairn(["show", id], { env: env() });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("allowed for this task: web_fetch(127.0.0.1)");
    // ...and it is the task's alone: nothing was saved for the workspace or the person.
    expect(() => readFileSync(path.join(home.dir, "permissions.json"), "utf8")).toThrow();

    const resumed = await resumeAndFetch(id, `${pages.url}/again`);
    expect(resumed.run.code, resumed.run.stderr).toBe(0);
    expect(pages.hits).toContain("/again");
    expect(body(resumed.requests[1])).toContain("PAGE-CONTENT of /again");
    expect(resumed.run.stdout).toContain("allowed by the task rule web_fetch(127.0.0.1)");
    expect(askedIn(resumed.run.stdout)).toEqual([]);

    // Negative control: the same fetch in another task of the same workspace is not covered by it.
    const other = await otherTaskFetches(`${pages.url}/other`);
    expect(pages.hits).not.toContain("/other");
    expect(body(other.requests[1])).toContain("web_fetch needs approval (browser) and nobody can approve it in this run");
    expect(other.run.stdout).not.toContain("allowed by the task rule");
  });

  it("the process is killed (SIGKILL) while the allowed fetch is still running: the rule was already kept, and the resumed task fetches without asking", async () => {
    // The model's next turn never comes: the fetch of /slow hangs until the kill.
    const { id } = await allowForTask([done("NEVER-REACHED")], `${pages.url}/slow`);
    const deadline = Date.now() + 15_000;
    while (!pages.hits.includes("/slow") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(pages.hits).toEqual(["/slow"]);
    await web!.kill();
    web = undefined;
    const stored = JSON.parse(readFileSync(metadataFile(id), "utf8")) as { status: string; taskRules?: string[] };
    expect(stored.status).toBe("running"); // no clean end was written
    expect(stored.taskRules).toEqual(["web_fetch(127.0.0.1)"]);

    const resumed = await resumeAndFetch(id, `${pages.url}/again`);
    expect(resumed.run.code, resumed.run.stderr).toBe(0);
    expect(pages.hits).toContain("/again");
    expect(body(resumed.requests[1])).toContain("PAGE-CONTENT of /again");
    expect(askedIn(resumed.run.stdout)).toEqual([]);

    const other = await otherTaskFetches(`${pages.url}/other`);
    expect(pages.hits).not.toContain("/other");
    expect(body(other.requests[1])).toContain("nobody can approve it in this run");
  });

  it.each([
    ["a list with damaged rules", ["web_fetch(", 5, "read_file(/etc/*)"], 3],
    ["not a list", "web_fetch(127.0.0.1)", 1],
  ])("damaged task rules in metadata.json (%s): one line each, the bad ones dropped, the task resumes and asks again", async (_kind, damaged, lines) => {
    const { id } = await allowForTask([done("FIRST-DONE")], `${pages.url}/first`);
    await until(web!, (all) => all.some((f) => f.event.type === "result"), "the result");
    await web!.stop();
    web = undefined;
    const meta = JSON.parse(readFileSync(metadataFile(id), "utf8")) as Record<string, unknown>;
    writeFileSync(metadataFile(id), JSON.stringify({ ...meta, taskRules: damaged }, null, 2));

    const resumed = await resumeAndFetch(id, `${pages.url}/again`);
    expect(resumed.run.code, resumed.run.stderr).toBe(0);
    expect(resumed.run.stderr).not.toMatch(/\n\s+at /);
    const notices = resumed.run.stderr.split("\n").filter((l) => l.includes(metadataFile(id)));
    expect(notices, resumed.run.stderr).toHaveLength(lines);
    for (const notice of notices) expect(notice).toMatch(/is damaged .*dropped, so you will be asked again/);
    // Nothing the damaged list said was applied: the fetch needed a person, and nobody was there.
    expect(pages.hits).not.toContain("/again");
    expect(body(resumed.requests[1])).toContain("nobody can approve it in this run");

    // Positive control: the same task with its rule intact fetches without asking.
    writeFileSync(metadataFile(id), JSON.stringify({ ...meta, taskRules: Array.isArray(damaged) ? [...damaged, "web_fetch(127.0.0.1)"] : ["web_fetch(127.0.0.1)"] }, null, 2));
    const again = await resumeAndFetch(id, `${pages.url}/again`);
    expect(again.run.code, again.run.stderr).toBe(0);
    expect(pages.hits).toContain("/again");
  });
});
