import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { providerIds, type ProviderId } from "@cairn/core";
import { cairnHome } from "@cairn/core/storage";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";
import { z } from "zod";
import { checkAccess, hostPort, type AccessRules } from "./access-guard.js";
import { stepDiff, timeline } from "./checkpoint-timeline.js";
import { Completions } from "./completions.js";
import { streamEvents } from "./event-stream.js";
import { FleetBoard } from "./fleet-board.js";
import { fleetRoutes } from "./fleet-routes.js";
import { ImageUploads } from "./image-uploads.js";
import { checkModel, modelCatalog } from "./model-choices.js";
import { readJson, refuse, securityHeaders, send } from "./http-io.js";
import { findRoute, type Route, type RouteContext } from "./route-table.js";
import { serveFile } from "./static-files.js";
import { settingsRoutes } from "./settings-routes.js";
import { TaskHub } from "./task-hub.js";

export type WebServerOptions = {
  host: string;
  /** 0: a free port. */
  port: number;
  args: RunArgs;
  env: NodeJS.ProcessEnv;
  /** The built page; defaults to this package's client-dist. */
  clientDir?: string;
};

export type WebServer = { url: string; token: string; host: string; port: number; hub: TaskHub; fleet?: FleetBoard; close(): Promise<void> };

const defaultClientDir = fileURLToPath(new URL("../client-dist/", import.meta.url));

/** Pictures by the ids POST /api/images gave them. */
const imageIds = z.array(z.string().max(64)).max(100).optional();
const modelChoice = z.object({ provider: z.enum(providerIds as [ProviderId, ...ProviderId[]]), model: z.string().min(1).max(200) });
const startBody = z.object({ text: z.string().min(1), mode: z.enum(["act", "plan"]).optional(), images: imageIds, model: modelChoice.optional() });
const messageBody = z.object({ text: z.string(), images: imageIds });
const approvalBody = z.object({
  tool_use_id: z.string(),
  approved: z.boolean(),
  feedback: z.string().optional(),
  /** "Always allow": the call's suggested rule, kept for the task, this workspace or the person. */
  remember: z.enum(["task", "workspace", "user"]).optional(),
});
const answerBody = z.object({ answer: z.string() });
const restoreBody = z.object({ checkpoint: z.number().int().min(1), what: z.enum(["files", "conversation", "both"]) });
const modeBody = z.object({ mode: z.enum(["act", "plan"]) });
const promptBody = z.object({ approved: z.boolean(), feedback: z.string().optional(), budget_usd: z.number().positive().optional() });

/** A task this server runs, and the session it has open. */
type Running = NonNullable<ReturnType<TaskHub["get"]>>;
type Opened = NonNullable<Running["opened"]>;

/** Starts the server; resolves once it listens. */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const token = randomBytes(24).toString("base64url");
  const hub = new TaskHub(options.args, options.env);
  const clientDir = path.resolve(options.clientDir ?? defaultClientDir) + path.sep;
  const rules: AccessRules = { token, host: options.host, port: 0 };
  const streams = new Set<ServerResponse>();
  const completions = new Completions(cairnHome(options.env));
  const uploads = new ImageUploads();
  // The fleet is shown when the person points cairn web at its Redis, as cairn fleet itself is pointed.
  const fleet = options.env.CAIRN_REDIS_URL?.trim() ? new FleetBoard(options.env, path.join(cairnHome(options.env), "web", "fleet-repos")) : undefined;

  /** A task this server runs, or the 404 that says how to carry it on. */
  const running = (handle: (task: Running, context: RouteContext) => void | Promise<void>) => (context: RouteContext) => {
    const id = context.params[0]!;
    const task = hub.get(id);
    if (!task) return send(context.res, 404, { error: `No task ${id} runs in this server; send it a message to carry it on.` });
    return handle(task, context);
  };
  /** A task opened here (its checkpoints are read through it), or the 404 that says how to open it. */
  const opened = (handle: (session: Opened, context: RouteContext) => void | Promise<void>) => (context: RouteContext) => {
    const id = context.params[0]!;
    const session = hub.get(id)?.opened;
    if (!session) return send(context.res, 404, { error: `No task ${id} in this server; send it a message first to open it here.` });
    return handle(session, context);
  };

  /** Every endpoint of the API, in one place: what the page may ask, and which code answers it. */
  const routes: Route[] = [
    ["GET", "/api/events", ({ req, res, url }) => {
      const last = Number(req.headers["last-event-id"] ?? url.searchParams.get("last_event_id") ?? 0);
      streams.add(res);
      res.on("close", () => streams.delete(res));
      return streamEvents(req, res, hub.log, Number.isFinite(last) ? last : 0, securityHeaders);
    }],
    ...fleetRoutes(fleet),
    ...settingsRoutes({ home: cairnHome(options.env), cwd: options.args.cwd, env: options.env, overrides: overridesOf(options.args) }),
    ["GET", "/api/state", ({ res }) => send(res, 200, { tasks: hub.running(), mode: options.args.mode ?? "act" })],
    ["GET", "/api/complete", async ({ res, url }) => {
      const text = url.searchParams.get("text") ?? "";
      const cursor = Number(url.searchParams.get("cursor") ?? text.length);
      const task = url.searchParams.get("task");
      const cwd = (task ? hub.get(task)?.opened?.cwd : undefined) ?? options.args.cwd;
      const found = await completions.at(cwd, text, Number.isInteger(cursor) ? Math.min(Math.max(cursor, 0), text.length) : text.length);
      send(res, 200, found ?? { items: [], from: 0, to: 0 });
    }],
    ["GET", "/api/history", ({ res, url }) => send(res, 200, hub.history(url.searchParams.get("all") === "1"))],
    ["GET", "/api/models", async ({ res }) => send(res, 200, await modelCatalog(options.args, options.env))],
    ["GET", "/api/models/check", async ({ res, url }) => {
      const chosen = modelChoice.safeParse({ provider: url.searchParams.get("provider"), model: url.searchParams.get("model") });
      if (!chosen.success) return send(res, 400, { error: "Name a provider and a model (provider=…&model=…)." });
      const check = await checkModel(chosen.data, options.args, options.env);
      return check.ok ? send(res, 200, check) : send(res, 200, { ok: false, error: check.message });
    }],
    ["POST", "/api/images", async ({ req, res }) => {
      const uploaded = await uploads.receive(req);
      return uploaded.ok ? send(res, 201, uploaded) : send(res, uploaded.status, { error: uploaded.message });
    }],
    ["DELETE", /^\/api\/images\/([\w-]+)$/, ({ res, params: [id] }) => {
      uploads.release([id!]);
      send(res, 200, { ok: true });
    }],
    ["GET", /^\/api\/history\/([\w.-]+)\/events$/, ({ res, params: [id] }) => {
      const stored = hub.storedEvents(id!);
      return stored.ok ? send(res, 200, { events: stored.events }) : send(res, 404, { error: stored.message });
    }],
    ["DELETE", /^\/api\/history\/([\w.-]+)$/, async ({ res, params: [id] }) => {
      const removed = await hub.remove(id!);
      return removed.ok ? send(res, 200, { ok: true }) : send(res, removed.status, { error: removed.message });
    }],
    ["POST", "/api/tasks", async ({ req, res }) => {
      const body = await readJson(req, startBody);
      if (!body.ok) return send(res, 400, { error: body.message });
      const ids = body.value.images ?? [];
      const taken = uploads.take(ids);
      if (!taken.ok) return send(res, 400, { error: taken.message });
      const started = await hub.start(body.value.text, body.value.mode, { images: taken.images, ...(body.value.model ? { model: body.value.model } : {}) });
      if (started.ok) uploads.release(ids);
      return started.ok ? send(res, 201, { id: started.id }) : send(res, started.status, { error: started.message });
    }],
    ["GET", /^\/api\/tasks\/([\w.-]+)\/checkpoints$/, opened((session, { res }) => send(res, 200, { checkpoints: timeline(session) }))],
    ["GET", /^\/api\/tasks\/([\w.-]+)\/checkpoints\/(\d+)\/diff$/, opened(async (session, { res, params: [, number] }) => {
      const diff = await stepDiff(session, Number(number));
      return typeof diff === "string" ? send(res, 404, { error: diff }) : send(res, 200, diff);
    })],
    ["POST", /^\/api\/tasks\/([\w.-]+)\/checkpoints\/restore$/, async ({ req, res, params: [id] }) => {
      const body = await readJson(req, restoreBody);
      if (!body.ok) return send(res, 400, { error: body.message });
      const restored = await hub.restore(id!, body.value.checkpoint, body.value.what);
      return restored.ok ? send(res, 200, restored.done) : send(res, restored.status, { error: restored.message });
    }],
    ["POST", /^\/api\/tasks\/([\w.-]+)\/messages$/, async ({ req, res, params: [id] }) => {
      const body = await readJson(req, messageBody);
      if (!body.ok) return send(res, 400, { error: body.message });
      const ids = body.value.images ?? [];
      const taken = uploads.take(ids);
      if (!taken.ok) return send(res, 400, { error: taken.message });
      const sent = await hub.send(id!, body.value.text, taken.images);
      if (sent.ok) uploads.release(ids);
      return sent.ok ? send(res, 202, { id: sent.id }) : send(res, sent.status, { error: sent.message });
    }],
    ["POST", /^\/api\/tasks\/([\w.-]+)\/stop$/, running((task, { res, params: [id] }) => {
      task.stop();
      send(res, 202, { id });
    })],
    ["POST", /^\/api\/tasks\/([\w.-]+)\/approvals$/, running(async (task, { req, res }) => {
      const body = await readJson(req, approvalBody);
      if (!body.ok) return send(res, 400, { error: body.message });
      const { tool_use_id, approved, feedback, remember } = body.value;
      const answered = task.approve(tool_use_id, { approved, ...(feedback ? { feedback } : {}), ...(approved && remember ? { remember } : {}) });
      return answered.ok ? send(res, 200, { ok: true }) : send(res, answered.status, { error: answered.message });
    })],
    ["POST", /^\/api\/tasks\/([\w.-]+)\/mode$/, running(async (task, { req, res }) => {
      const body = await readJson(req, modeBody);
      if (!body.ok) return send(res, 400, { error: body.message });
      const switched = task.setMode(body.value.mode);
      return switched.ok ? send(res, 200, { ok: true }) : send(res, switched.status, { error: switched.message });
    })],
    ["POST", /^\/api\/tasks\/([\w.-]+)\/prompt$/, running(async (task, { req, res }) => {
      const body = await readJson(req, promptBody);
      if (!body.ok) return send(res, 400, { error: body.message });
      const answered = task.answerPrompt(body.value.approved, body.value.feedback, body.value.budget_usd);
      return answered.ok ? send(res, 200, { ok: true }) : send(res, answered.status, { error: answered.message });
    })],
    ["POST", /^\/api\/tasks\/([\w.-]+)\/answer$/, running(async (task, { req, res }) => {
      const body = await readJson(req, answerBody);
      if (!body.ok) return send(res, 400, { error: body.message });
      const answered = task.answer(body.value.answer);
      return answered.ok ? send(res, 200, { ok: true }) : send(res, answered.status, { error: answered.message });
    })],
  ];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://x");
    // The page's files are public (they hold no secret); every /api call needs the token in its header.
    const verdict = checkAccess(req, rules, url.pathname.startsWith("/api/"));
    if (!verdict.ok) return refuse(res, verdict.status, verdict.message);
    if (!url.pathname.startsWith("/api/")) {
      if (req.method !== "GET") return refuse(res, 405, "Method not allowed.");
      return serveFile(res, clientDir, url.pathname);
    }
    const found = findRoute(routes, req.method, url.pathname);
    if (found === "wrong method") return send(res, 405, { error: "Method not allowed." });
    if (!found) return send(res, 404, { error: `No such endpoint: ${req.method} ${url.pathname}.` });
    const [, , answer] = found.route;
    return answer({ req, res, url, params: found.params });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: `The server failed: ${(error as Error).message}` });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  rules.port = port;
  const shownHost = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
  return {
    // In the fragment: a browser never sends it to any server, and the page moves it to its own storage.
    url: `http://${hostPort(shownHost, port)}/#token=${token}`,
    token,
    host: options.host,
    port,
    hub,
    ...(fleet ? { fleet } : {}),
    close: async () => {
      for (const res of streams) res.end();
      await fleet?.close();
      await hub.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections(); // idle keep-alive sockets would hold close() for seconds
      await closed;
    },
  };
}
