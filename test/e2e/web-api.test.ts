import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { goodHeaders, rawRequest, startScriptedWeb, startWeb, type WebRun } from "../support/web-harness.js";

type Frame = { id: number; task_id: string; event: { type: string; status?: string; tool_use_id?: string } };

let ws: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;
let model: ScriptedModelServer;
let web: WebRun | undefined;

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

beforeEach(() => {
  ws = tempDir("web-api-ws");
  home = tempDir("web-api-home");
  writeFileSync(path.join(ws.dir, "notes.txt"), "one\n");
});
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await model.close();
  ws.cleanup();
  home.cleanup();
});

async function serve(turns: ScriptedTurn[]): Promise<WebRun> {
  model = await startScriptedModelServer({ turns });
  web = await startScriptedWeb(model, ws.dir, home.dir);
  return web;
}

const post = (w: WebRun, p: string, body: unknown) =>
  rawRequest(w, { method: "POST", path: p, headers: goodHeaders(w, { "Content-Type": "application/json" }), body: JSON.stringify(body) });

/** The frames an SSE connection delivers in `ms`, optionally resuming after `lastId`. */
async function frames(w: WebRun, ms: number, lastId?: number): Promise<Frame[]> {
  const res = await rawRequest(w, { path: "/api/events", headers: goodHeaders(w, lastId !== undefined ? { "Last-Event-ID": String(lastId) } : {}), readMs: ms });
  expect(res.status).toBe(200);
  return res.body
    .split("\n\n")
    .filter((block) => block.includes("data: "))
    .map((block) => {
      const id = Number(/^id: (\d+)$/m.exec(block)![1]);
      return { id, ...(JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Omit<Frame, "id">) };
    });
}

async function until(w: WebRun, test: (all: Frame[]) => boolean, timeoutMs = 15_000): Promise<Frame[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = await frames(w, 200);
    if (test(all)) return all;
    if (Date.now() > deadline) throw new Error(`the stream never got there: ${JSON.stringify(all.map((f) => f.event.type))}`);
  }
}

describe("cairn web's task API and event stream", () => {
  it("numbers every event; a reconnect with Last-Event-ID gets exactly the rest; approvals are answered once", async () => {
    const w = await serve([call("write_to_file", { path: "notes.txt", content: "two\n" }), call("attempt_completion", { result: "wrote it" })]);
    const started = await post(w, "/api/tasks", { text: "write two" });
    expect(started.status).toBe(201);
    const id = (JSON.parse(started.body) as { id: string }).id;

    const before = await until(w, (all) => all.some((f) => f.event.status === "awaiting_approval"));
    const waiting = before.find((f) => f.event.status === "awaiting_approval")!;
    expect(before.every((f) => f.task_id === id)).toBe(true);
    expect(before.map((f) => f.event.type)).toContain("user_message");
    const lastSeen = before.at(-1)!.id;

    expect((await post(w, `/api/tasks/${id}/approvals`, { tool_use_id: waiting.event.tool_use_id, approved: true })).status).toBe(200);
    const again = await post(w, `/api/tasks/${id}/approvals`, { tool_use_id: waiting.event.tool_use_id, approved: false });
    expect(again.status).toBe(409); // answered in another tab already: the first answer stands
    // The run is over once its result is in: nothing more comes.
    const all = await until(w, (f) => f.at(-1)!.event.type === "result");
    expect(readFileSync(path.join(ws.dir, "notes.txt"), "utf8")).toBe("two\n");

    const rest = await frames(w, 300, lastSeen);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.every((f) => f.id > lastSeen)).toBe(true);
    // What the first connection saw plus what the second got is the whole stream, in order, nothing twice.
    const whole = [...all.filter((f) => f.id <= lastSeen), ...rest];
    expect(whole.map((f) => f.id)).toEqual(all.map((f) => f.id));
    expect(whole.map((f) => f.id)).toEqual([...whole.map((f) => f.id)].sort((a, b) => a - b));
    expect(rest.some((f) => f.event.type === "tool_call_update" && f.event.status === "completed")).toBe(true);
  });

  it("refuses bad requests with a message a person can act on", async () => {
    const w = await serve([]);
    const empty = await post(w, "/api/tasks", { text: "" });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatch(/text/);
    const unknown = await post(w, "/api/tasks/nope/approvals", { tool_use_id: "x", approved: true });
    expect(unknown.status).toBe(404);
    const notJson = await rawRequest(w, { method: "POST", path: "/api/tasks", headers: goodHeaders(w, { "Content-Type": "text/plain" }), body: "hi" });
    expect(notJson.status).toBe(400);
    expect(model.requests).toHaveLength(0);
  });

  it("restoring both to the first checkpoint puts the files back and the model sees the shorter conversation", async () => {
    const w = await serve([call("write_to_file", { path: "notes.txt", content: "two\n" }), call("attempt_completion", { result: "wrote it" }), call("attempt_completion", { result: "again" })]);
    const started = await post(w, "/api/tasks", { text: "write two" });
    const id = (JSON.parse(started.body) as { id: string }).id;
    const waiting = (await until(w, (all) => all.some((f) => f.event.status === "awaiting_approval"))).find((f) => f.event.status === "awaiting_approval")!;
    await post(w, `/api/tasks/${id}/approvals`, { tool_use_id: waiting.event.tool_use_id, approved: true });
    await until(w, (f) => f.at(-1)!.event.type === "result");
    expect(readFileSync(path.join(ws.dir, "notes.txt"), "utf8")).toBe("two\n");

    const list = await rawRequest(w, { path: `/api/tasks/${id}/checkpoints`, headers: goodHeaders(w) });
    const checkpoints = (JSON.parse(list.body) as { checkpoints: Array<{ number: number; label: string }> }).checkpoints;
    expect(checkpoints[0]!.label).toBe("task start");
    const restored = await post(w, `/api/tasks/${id}/checkpoints/restore`, { checkpoint: 1, what: "both" });
    expect(restored.status, restored.body).toBe(200);
    expect(readFileSync(path.join(ws.dir, "notes.txt"), "utf8")).toBe("one\n");

    expect((await post(w, `/api/tasks/${id}/messages`, { text: "start over" })).status).toBe(202);
    await expect.poll(() => model.requests.length, { timeout: 20_000 }).toBe(3);
    const last = JSON.stringify(model.requests[2]!.body);
    expect(last).toContain("start over");
    expect(last).not.toContain('write_to_file","input'); // the cut-off call is gone from what the model sees
    expect(JSON.stringify(model.requests[1]!.body)).toContain('write_to_file","input'); // positive control: before the restore it was there
  });

  it("a task waiting for approval cannot be deleted; once it has finished, it can", async () => {
    const w = await serve([call("write_to_file", { path: "notes.txt", content: "two\n" }), call("attempt_completion", { result: "wrote it" })]);
    const id = (JSON.parse((await post(w, "/api/tasks", { text: "write two" })).body) as { id: string }).id;
    const waiting = (await until(w, (all) => all.some((f) => f.event.status === "awaiting_approval"))).find((f) => f.event.status === "awaiting_approval")!;
    const del = () => rawRequest(w, { method: "DELETE", path: `/api/history/${id}`, headers: goodHeaders(w) });
    const refused = await del();
    expect(refused.status).toBe(409);
    expect(refused.body).toMatch(/stop it before deleting/);
    expect(existsSync(path.join(home.dir, "tasks", id))).toBe(true);
    await post(w, `/api/tasks/${id}/approvals`, { tool_use_id: waiting.event.tool_use_id, approved: true });
    await until(w, (f) => f.at(-1)!.event.type === "result");
    expect((await del()).status).toBe(200);
    expect(existsSync(path.join(home.dir, "tasks", id))).toBe(false);
    const listed = JSON.parse((await rawRequest(w, { path: "/api/history", headers: goodHeaders(w) })).body) as { tasks: Array<{ id: string }> };
    expect(listed.tasks.map((t) => t.id)).not.toContain(id);
    // A foreign page cannot delete either: the same checks as every request.
    expect((await rawRequest(w, { method: "DELETE", path: `/api/history/${id}`, headers: goodHeaders(w, { Origin: "http://evil.example" }) })).status).toBe(403);
  });

  it("@ completion never offers what .cairnignore hides, and needs the token like everything else", async () => {
    writeFileSync(path.join(ws.dir, ".cairnignore"), "secrets.env\n");
    writeFileSync(path.join(ws.dir, "secrets.env"), "KEY=1\n");
    writeFileSync(path.join(ws.dir, "secondary.txt"), "x\n");
    const w = await serve([]);
    const complete = (text: string, headers = goodHeaders(w)) => rawRequest(w, { path: `/api/complete?text=${encodeURIComponent(text)}`, headers });
    const labels = async (text: string) => (JSON.parse((await complete(text)).body) as { items: Array<{ label: string }> }).items.map((i) => i.label);
    expect(await labels("@sec")).toEqual(["secondary.txt"]); // positive control: a file beside it is offered
    expect(await labels("@secrets")).toEqual([]);
    expect(await labels("/new")).toEqual(expect.arrayContaining(["/newtask [what]", "/newrule [what]"]));
    expect((await complete("@sec", { Host: w.host })).status).toBe(401);
  });

  it("a shortened task id reaches the same task here, never a second copy of it", async () => {
    const w = await serve([call("attempt_completion", { result: "first" }), call("attempt_completion", { result: "second" })]);
    const id = (JSON.parse((await post(w, "/api/tasks", { text: "remember kestrel" })).body) as { id: string }).id;
    await until(w, (f) => f.at(-1)!.event.type === "result");
    const sent = await post(w, `/api/tasks/${id.slice(0, 8)}/messages`, { text: "and again" });
    expect(sent.status, sent.body).toBe(202);
    expect((JSON.parse(sent.body) as { id: string }).id).toBe(id);
    const all = await until(w, (f) => f.filter((x) => x.event.type === "result").length === 2 && f.at(-1)!.event.type === "result");
    expect(new Set(all.map((f) => f.task_id))).toEqual(new Set([id]));
    expect(all.filter((f) => f.event.type === "session_opened")).toHaveLength(1); // not reopened
    expect(JSON.stringify(model.requests[1]!.body)).toContain("remember kestrel");
  });
});

describe("cairn web --open", () => {
  /** `cairn web --open` with only `pathDirs` on PATH (the scripted model as its model). */
  async function serveOpen(pathDirs: string[]): Promise<WebRun> {
    model = await startScriptedModelServer({ turns: [] });
    const env = cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home.dir, PATH: pathDirs.join(path.delimiter) });
    web = await startWeb(["--provider", "anthropic", "--base-url", model.url, "--cwd", ws.dir, "--open"], { env });
    return web;
  }

  it("hands the printed link, token and all, to the desktop's opener found on PATH, and that link opens the page", async () => {
    // Stands in for the desktop's xdg-open (a system program, not Cairn's): it writes down what it was given.
    const bin = tempDir("web-open-bin");
    const got = path.join(bin.dir, "args.txt");
    writeFileSync(path.join(bin.dir, "xdg-open"), `#!/bin/sh\nprintf '%s\\n' "$@" > '${got}'\n`);
    chmodSync(path.join(bin.dir, "xdg-open"), 0o755);
    try {
      const w = await serveOpen([bin.dir, ...(process.env.PATH ?? "").split(path.delimiter)]);
      await expect.poll(() => existsSync(got) && readFileSync(got, "utf8"), { timeout: 10_000 }).toBe(`${w.url}\n`); // one argument: the whole link
      expect(w.token).not.toBe("");
      const opened = new URL(readFileSync(got, "utf8").trim());
      expect(new URLSearchParams(opened.hash.slice(1)).get("token")).toBe(w.token);
      // The link opens the page (its fragment stays in the browser), and the token it carries is accepted by the API.
      const page = await rawRequest(w, { path: opened.pathname, headers: { Host: opened.host } });
      expect(page.status).toBe(200);
      expect(page.headers["content-type"]).toMatch(/text\/html/);
      expect((await rawRequest(w, { path: "/api/state", headers: { Host: opened.host, Authorization: `Bearer ${w.token}` } })).status).toBe(200);
      expect(w.stderr()).not.toContain("--open");
    } finally {
      bin.cleanup();
    }
  });

  it("with no opener on PATH, the server still starts, prints the link and says so in one line", async () => {
    const empty = tempDir("web-open-empty");
    try {
      const w = await serveOpen([empty.dir]);
      expect(w.stdout()).toContain(`Cairn is running at ${w.url}`);
      await expect.poll(() => w.stderr(), { timeout: 10_000 }).toContain("--open");
      expect(w.stderr().split("\n").filter((l) => l.includes("--open"))).toEqual(["cairn: --open found no xdg-open on PATH to open a browser; open the link above."]);
      // Still serving: the API answers with the printed token.
      expect((await rawRequest(w, { path: "/api/state", headers: goodHeaders(w) })).status).toBe(200);
    } finally {
      empty.cleanup();
    }
  });
});
