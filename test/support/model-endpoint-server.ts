/**
 * A model endpoint's own API beside its chat API, for tests of what Cairn asks it about its models:
 * Ollama's POST /api/show and GET /api/tags, LM Studio's GET /api/v0/models and OpenRouter's GET /api/v1/models,
 * answered from fixtures in model-endpoints/ written after each provider's documented response.
 * Anything else goes on to `chat` (the scripted model server), so one URL serves a whole run.
 */
import { readFileSync } from "node:fs";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "model-endpoints");

/** A fixture's text, as the provider would send it. */
export const endpointFixture = (name: string): string => readFileSync(path.join(fixtures, name), "utf8");

export type ModelEndpointServer = {
  url: string;
  /** Every request to the model API side, as "METHOD /path" (with the body's model for /api/show). */
  asked: string[];
  close(): Promise<void>;
};

export type ModelEndpointOptions = {
  /** Ollama: model name → fixture file for POST /api/show (an unknown model is a 404, as Ollama answers). */
  ollamaShow?: Record<string, string>;
  /** Ollama: the fixture for GET /api/tags (the models pulled). */
  ollamaTags?: string;
  /** LM Studio: the fixture for GET /api/v0/models. */
  lmstudioModels?: string;
  /** OpenRouter: the fixture for GET /api/v1/models. */
  openrouterModels?: string;
  /** Where the chat requests go on to (the scripted model server's URL). */
  chat?: string;
  /** Answers the model API side only after the client gave up (a hung server). */
  hang?: boolean;
};

export async function startModelEndpointServer(o: ModelEndpointOptions): Promise<ModelEndpointServer> {
  const asked: string[] = [];
  const held: ServerResponse[] = [];
  const send = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const where = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const body = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    });
    const mine =
      (req.method === "POST" && where === "/api/show" && o.ollamaShow) ||
      (req.method === "GET" && where === "/api/tags" && o.ollamaTags) ||
      (req.method === "GET" && where === "/api/v0/models" && o.lmstudioModels) ||
      (req.method === "GET" && where === "/api/v1/models" && o.openrouterModels);
    if (mine) {
      const model = where === "/api/show" ? String((JSON.parse(body || "{}") as { model?: unknown }).model) : undefined;
      asked.push(`${req.method} ${where}${model ? ` ${model}` : ""}`);
      if (o.hang) return void held.push(res);
      if (model !== undefined) {
        const file = o.ollamaShow![model];
        return file ? send(res, 200, endpointFixture(file)) : send(res, 404, JSON.stringify({ error: `model '${model}' not found` }));
      }
      const fixtures: Record<string, string | undefined> = { "/api/tags": o.ollamaTags, "/api/v0/models": o.lmstudioModels, "/api/v1/models": o.openrouterModels };
      const fixture = fixtures[where];
      return send(res, 200, endpointFixture(fixture!));
    }
    if (!o.chat) return send(res, 404, JSON.stringify({ error: "not found" }));
    // OpenRouter's API root is /api/v1; the scripted model server's is /v1.
    const target = new URL((req.url ?? "/").replace(/^\/api\/v1\//, "/v1/"), o.chat);
    const onward = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    onward.on("error", () => res.destroy());
    onward.end(body);
  };
  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
