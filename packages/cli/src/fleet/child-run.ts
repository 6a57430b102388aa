import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { withoutFleetSecret } from "./fleet-secret.js";

const guardPath = fileURLToPath(new URL("./run-guard.js", import.meta.url));
const cairnBin = fileURLToPath(new URL("../../bin/cairn.js", import.meta.url));

export type RunEvent = Record<string, unknown> & { type: string };

export type ChildRunEnd = {
  exitCode: number | null;
  /** The run's final `result` event, absent when it died before writing one. */
  result: RunEvent | undefined;
  /** The last `error` event (a failed model request carries its kind: rate_limit, network…). */
  lastError: RunEvent | undefined;
  /** The end of stderr, for a failure that wrote no event. */
  stderrTail: string;
};

/**
 * Runs `cairn run --json` in `cwd` as a child of the run guard (see run-guard.ts), handing each
 * event to `onEvent` as its line arrives. Aborting the signal closes the guard's pipe, which ends
 * the run and everything it started; so does this process going quiet for `quietMs`.
 */
export function runCairnChild(flags: string[], task: string, cwd: string, signal: AbortSignal, onEvent: (event: RunEvent) => void, quietMs: number): Promise<ChildRunEnd> {
  const child = spawn(process.execPath, [guardPath, String(quietMs), process.execPath, cairnBin, "run", ...flags, "--json", "--cwd", cwd, "--", task], {
    cwd,
    stdio: ["pipe", "pipe", "pipe"],
    // The run needs the worker's keys, not its fleet secret: with it, the run (or a command the
    // job's policy lets run outside the sandbox) could sign jobs of its own.
    env: withoutFleetSecret(process.env),
  });
  // The heartbeat the guard waits for: four in each quiet period, so one late beat is no stop.
  const heartbeat = setInterval(() => child.stdin.write("\n"), quietMs / 4);
  let result: RunEvent | undefined;
  let lastError: RunEvent | undefined;
  let stderrTail = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-2000);
  });
  const lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return; // --json writes only events to stdout; anything else is not ours to forward
    }
    if (typeof event !== "object" || event === null || typeof (event as { type?: unknown }).type !== "string") return;
    const typed = event as RunEvent;
    if (typed.type === "result") result = typed;
    if (typed.type === "error") lastError = typed;
    onEvent(typed);
  });
  const stop = () => {
    clearInterval(heartbeat);
    child.stdin.end();
  };
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  child.stdin.on("error", () => {}); // the guard may be gone already
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearInterval(heartbeat);
      signal.removeEventListener("abort", stop);
      resolve({ exitCode: code, result, lastError, stderrTail });
    });
  });
}
