import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";

/** Sent with every answer: no framing, no sniffing, no referrer, nothing shared across origins. */
export const securityHeaders = {
  "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

export function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { ...securityHeaders, "Content-Type": "application/json", "Cache-Control": "no-store" });
  res.end(JSON.stringify(body));
}

export function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { ...securityHeaders, "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
  res.end(`${message}\n`);
}

export async function readJson<T>(req: IncomingMessage, schema: z.ZodType<T>): Promise<{ ok: true; value: T } | { ok: false; message: string }> {
  if (!(req.headers["content-type"] ?? "").startsWith("application/json")) return { ok: false, message: "Send JSON (Content-Type: application/json)." };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1_000_000) return { ok: false, message: "The request is too large (over 1 MB)." };
    chunks.push(chunk as Buffer);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return { ok: false, message: "The body is not valid JSON." };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, message: `Invalid request: ${parsed.error.issues.map((i) => `${i.path.join(".") || "body"} ${i.message}`).join("; ")}.` };
  return { ok: true, value: parsed.data };
}
