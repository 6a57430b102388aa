/**
 * A real redis-server (Debian's package) for the fleet's tests and bench: its own free port, its own
 * data folder with an append-only file, so it can be stopped and started again without losing jobs.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

export type RedisServer = {
  url: string;
  port: number;
  /** Stops it the way an operator would (SHUTDOWN: the append-only file is flushed first). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data folder. */
  start(): Promise<void>;
};

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `bind`: the addresses it listens on (default 127.0.0.1 only); a fleet's Redis is usually on the network. */
export async function startRedisServer(dataDir: string, options: { bind?: string[] } = {}): Promise<RedisServer> {
  const bind = options.bind ?? ["127.0.0.1"];
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn(
        "redis-server",
        ["--port", String(port), "--bind", ...bind, "--protected-mode", "no", "--dir", dataDir, "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no"],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      child = proc;
      let out = "";
      const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s:\n${out}`)), 10_000);
      proc.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        if (out.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.on("error", (error) => {
        clearTimeout(timer);
        reject(new Error(`cannot start redis-server (apt-get install redis-server): ${error.message}`));
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      const proc = child;
      if (!proc || proc.exitCode !== null) return resolve();
      proc.once("exit", () => resolve());
      proc.kill("SIGTERM"); // redis-server shuts down cleanly on SIGTERM
    });
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, stop, start };
}
