/**
 * The process between a fleet worker and the `cairn run` it starts:
 *
 *   node run-guard.js <quiet-ms> <program> [args...]
 *
 * It starts the program in a process group of its own and ends that whole group (the run and the
 * commands it started) when its stdin closes, or when nothing has come on stdin for <quiet-ms>.
 * The worker holds the other end of that pipe and writes to it every so often, so the run ends
 * when the worker does, however it ends (kill -9 included, where no handler of the worker's
 * could run), and also when the worker stops answering (frozen, its machine suspended) for about
 * as long as its lock on the job lasts: by the time another worker can take the job up, this run
 * is over, and the job never runs twice at once. The worker asks for a stop by closing the pipe.
 */
import { spawn } from "node:child_process";

const [quiet, program, ...args] = process.argv.slice(2);
const quietMs = Number(quiet);
if (program === undefined || !(quietMs > 0)) {
  process.stderr.write("usage: run-guard <quiet-ms> <program> [args...]\n");
  process.exit(2);
}

const child = spawn(program, args, { stdio: ["ignore", "inherit", "inherit"], detached: true });
const group = child.pid === undefined ? undefined : -child.pid;
const signalGroup = (signal: NodeJS.Signals) => {
  if (group === undefined) return;
  try {
    process.kill(group, signal);
  } catch {
    // the group is already gone
  }
};

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  signalGroup("SIGTERM"); // cairn run ends its task cleanly on SIGTERM…
  setTimeout(() => {
    signalGroup("SIGKILL"); // …and gets two seconds to do it
    process.exit(137);
  }, 2000).unref();
};

let lastHeard = Date.now();
const watchdog = setInterval(() => {
  if (Date.now() - lastHeard > quietMs) stop();
}, Math.min(250, quietMs / 4));
watchdog.unref();
process.stdin.on("data", () => (lastHeard = Date.now()));
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.on("error", stop);
process.on("SIGTERM", stop);
// A Ctrl-C at the worker's terminal reaches the guard too: the worker decides what it means, and
// the run ends when the worker does (its pipe closes).
process.on("SIGINT", () => {});

child.on("error", (error) => {
  process.stderr.write(`run-guard: cannot start ${program}: ${error.message}\n`);
  process.exit(127);
});
child.on("exit", (code, signal) => {
  signalGroup("SIGKILL"); // whatever the run left behind in its group
  process.exit(code ?? (signal ? 128 + 9 : 1));
});
