import { createReadStream, existsSync, statSync } from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { refuse, securityHeaders } from "./http-io.js";

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
};

/** The built page's files; `clientDir` ends with a separator, so nothing outside it is served. */
export function serveFile(res: ServerResponse, clientDir: string, urlPath: string): void {
  const relative = urlPath === "/" ? "index.html" : decodeURIComponent(urlPath).replace(/^\/+/, "");
  const file = path.resolve(clientDir, relative);
  if (!file.startsWith(clientDir) || !existsSync(file) || !statSync(file).isFile()) {
    if (!existsSync(path.join(clientDir, "index.html"))) return refuse(res, 500, "The page is not built: run npm run build at the repository root.");
    return refuse(res, 404, "Not found.");
  }
  const immutable = relative.startsWith("assets/");
  res.writeHead(200, {
    ...securityHeaders,
    "Content-Type": contentTypes[path.extname(file)] ?? "application/octet-stream",
    "Cache-Control": immutable ? "private, max-age=31536000, immutable" : "no-store",
  });
  createReadStream(file).pipe(res);
}
