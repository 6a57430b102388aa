import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** For tests: the real MCP servers installed from npm, started with this Node (no npx, no network). */

const here = path.dirname(fileURLToPath(import.meta.url));

/** A package's folder in the nearest node_modules above this file. */
export function packageDir(name: string): string {
  for (let dir = here; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`${name} is not installed (run npm install at the repository root).`);
  }
}

export const serverEntry = {
  filesystem: () => path.join(packageDir("@modelcontextprotocol/server-filesystem"), "dist", "index.js"),
  memory: () => path.join(packageDir("@modelcontextprotocol/server-memory"), "dist", "index.js"),
  everything: () => path.join(packageDir("@modelcontextprotocol/server-everything"), "dist", "index.js"),
};

/** A free TCP port on 127.0.0.1 (released just before use; good enough for a test). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** The everything server over HTTP (`streamableHttp` or `sse`), ready to accept connections. */
export async function startEverythingHttp(
  mode: "streamableHttp" | "sse",
  port?: number,
): Promise<{ url: string; port: number; process: ChildProcess; stop(): Promise<void> }> {
  port ??= await freePort();
  const child = spawn(process.execPath, [serverEntry.everything(), mode], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.resume();
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`everything server (${mode}) did not start: ${output}`)), 15_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port|running on port/i.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`everything server (${mode}) exited with ${code}: ${output}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  return { url: `http://127.0.0.1:${port}/${mode === "sse" ? "sse" : "mcp"}`, port, process: child, stop };
}

/**
 * A small stdio server of our own (the SDK's server side), for what the reference servers can't
 * show: `strict` (a schema the server itself does not enforce) counts the calls that reach it,
 * `calls` reports that count, `block` wedges the process (a busy loop), `fail` answers isError, `crash` exits.
 * Returns the path of the script.
 */
export async function writeTestServer(dir: string): Promise<string> {
  const sdk = packageDir("@modelcontextprotocol/sdk");
  const url = (p: string) => pathToFileURL(path.join(sdk, "dist", "esm", p)).href;
  const script = `
import { Server } from ${JSON.stringify(url("server/index.js"))};
import { StdioServerTransport } from ${JSON.stringify(url("server/stdio.js"))};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(url("types.js"))};

let strictCalls = 0;
const server = new Server({ name: "cairn-test", version: "1.0.0" }, { capabilities: { tools: {} }, instructions: "A test server.\\nSecond line." });
const tools = [
  { name: "strict", description: "Counts calls.", inputSchema: { type: "object", properties: { n: { type: "integer" }, mode: { enum: ["a", "b"] }, tags: { type: "array", items: { type: "string" } } }, required: ["n"], additionalProperties: false } },
  { name: "calls", description: "How many strict calls arrived.", inputSchema: { type: "object", properties: {} } },
  { name: "block", description: "Busy-loops for ms milliseconds.", inputSchema: { type: "object", properties: { ms: { type: "number" } }, required: ["ms"] } },
  { name: "crash", description: "Exits the process.", inputSchema: { type: "object", properties: {} } },
  { name: "fail", description: "Always reports an error.", inputSchema: { type: "object", properties: {} } },
];
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case "strict": strictCalls += 1; return { content: [{ type: "text", text: "strict got " + JSON.stringify(args) }] };
    case "calls": return { content: [{ type: "text", text: String(strictCalls) }] };
    case "block": { const end = Date.now() + Number(args.ms); while (Date.now() < end) {} return { content: [{ type: "text", text: "unblocked" }] }; }
    case "fail": return { content: [{ type: "text", text: "it failed on purpose" }], isError: true };
    case "crash": process.stderr.write("test server: crashing on purpose\\n"); process.exit(3);
    default: return { content: [{ type: "text", text: "unknown tool" }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
`;
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, "test-server.mjs");
  await writeFile(file, script);
  return file;
}
