import { parseRunArgs, runHelp, type RunArgs } from "@cairn/host/run-args";
import { UsageError } from "@cairn/host/usage-error";

export type WebArgs = { host: string; hostGiven: boolean; port: number; open: boolean; run: RunArgs };

export const webHelp = `Usage: cairn web [--port n] [--host h] [--open] [run options]

Starts the agent's web page on this machine and prints the link to open (it carries an access
token: anyone with the link can run tasks here). Stop it with Ctrl-C.

  --port <n>     port (default: a free one)
  --host <h>     address to listen on (default 127.0.0.1; anything else is reachable from
                 other machines: only on a network you trust)
  --open         open the link in your browser (with xdg-open, open or start, found on PATH)
  --record <dir> each task's model exchanges go to <dir>/<task id>.jsonl (cairn replay)

${runHelp.split("\n").slice(4).join("\n").replace(/\n  --json[^\n]*/, "")}`;

/** Splits the web server's own flags from the run options every task started from the page gets. */
export function parseWebArgs(argv: string[], cwd: string): WebArgs | "help" {
  const rest: string[] = [];
  let host: string | undefined;
  let port = 0;
  let open = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new UsageError(`${flag} needs a value (see cairn web --help).`);
      return v;
    };
    if (flag === "--host") host = value();
    else if (flag === "--port") {
      const v = value();
      port = Number(v);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port needs a port number (0-65535), got "${v}".`);
    } else if (flag === "--open") open = true;
    else rest.push(arg);
  }
  const run = parseRunArgs(rest, cwd);
  if (run === "help") return "help";
  if (run.task !== "") throw new UsageError(`cairn web takes no task; type it in the page. Unexpected: "${run.task}".`);
  if (run.json) throw new UsageError("--json is for cairn run; cairn web shows events in the page.");
  return { host: host ?? "127.0.0.1", hostGiven: host !== undefined, port, open, run };
}
