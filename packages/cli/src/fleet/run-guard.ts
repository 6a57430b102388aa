/**
 * The process between a fleet worker and the `cairn run` it starts:
 *
 *   node run-guard.js <program> [args...]
 *
 * It starts the program in a process group of its own and ends that whole group (the run and the
 * commands it started) when its stdin closes. The worker holds the other end of that pipe, so the
 * run ends when the worker does, however it ends: kill -9 included, where no handler of the
 * worker's could. The worker asks for a stop the same way: it closes the pipe.
 */
import { spawn } from "node:child_process";

const [program, ...args] = process.argv.slice(2);
if (program === undefined) {
  process.stderr.write("usage: run-guard <program> [args...]\n");
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
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.on("error", stop);
process.stdin.resume();
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
