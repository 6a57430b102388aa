import type { Io } from "@cairn/host/io";
import { refuseBrokenSettings } from "@cairn/host/settings-check";
import { isLoopback } from "./access-guard.js";
import { openBrowser } from "./open-browser.js";
import { parseWebArgs, webHelp } from "./web-args.js";
import { startWebServer } from "./web-server.js";

/**
 * `cairn web`: serves the page until Ctrl-C. Tasks started from the page run in this process;
 * closing the browser leaves them running, stopping the server stops them (they stay resumable).
 */
export async function webCommand(argv: string[], io: Io): Promise<number> {
  const args = parseWebArgs(argv, process.cwd());
  if (args === "help") {
    io.stdout(`${webHelp}\n`);
    return 0;
  }
  try {
    refuseBrokenSettings(io.env);
  } catch (error) {
    io.stderr(`cairn: ${(error as Error).message}\n`);
    return 2;
  }
  if (!isLoopback(args.host)) {
    io.stderr(`cairn: warning: listening on ${args.host}, reachable from other machines; anyone with the link can run tasks with your keys on this computer.\n`);
  }
  let server;
  try {
    server = await startWebServer({ host: args.host, port: args.port, args: args.run, env: io.env as NodeJS.ProcessEnv });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") {
      io.stderr(`cairn: port ${args.port} is in use; pick another with --port, or leave it out for a free one.\n`);
      return 2;
    }
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
      io.stderr(`cairn: cannot listen on ${args.host}: not an address of this machine (try --host 127.0.0.1).\n`);
      return 2;
    }
    throw error;
  }
  io.stdout(`Cairn is running at ${server.url}\n`);
  if (server.fleet) {
    const away = await server.fleet.probe();
    io.stderr(away ? `cairn: the Fleet view waits for Redis: ${away}\n` : `cairn: showing the fleet on ${server.fleet.url}\n`);
  }
  if (args.open) {
    const note = await openBrowser(server.url, io.env as NodeJS.ProcessEnv);
    if (note) io.stderr(`${note}\n`);
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  io.stderr("cairn: stopping; running tasks stay stored (cairn resume <id>).\n");
  await server.close();
  return 0;
}
