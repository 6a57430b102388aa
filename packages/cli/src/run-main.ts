import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";
import { defaultIo, guarded } from "./command-guard.js";

export { installCrashHandlers } from "./command-guard.js";

let taskStarted = false;
let restoreFlags = (): void => undefined;

/** Whether this process got as far as running a task (not only `--help` or bad usage): its compiled code is then worth caching. */
export function ranTask(): boolean {
  return taskStarted;
}

/** Puts back the V8 flags the task changed (the shell parser turns wasm tier-up off), which V8 stamps a code cache with. */
export function beforeCodeCache(): void {
  restoreFlags();
}

/**
 * `cairn run`: the arguments, the task (or stdin), then the run command. On its own (with `cairn
 * resume`, which runs a task the same way) so that the code-cached bundle (packages/cli/scripts/
 * bundle.mjs, code-cache.ts) holds these commands and what they load, not every other command's modules.
 */
export async function runMain(rest: string[], io: Io): Promise<number> {
  const { parseRunArgs, runHelp } = await import("@cairn/host/run-args");
  const args = parseRunArgs(rest, process.cwd());
  if (args === "help") {
    io.stdout(`${runHelp}\n`);
    return 0;
  }
  if (args.task === "" && !args.continue) args.task = await readStdin();
  if (args.task === "" && !args.continue) throw new UsageError('No task given: cairn run "describe the task" (or pipe it on stdin).');
  await refuseUnknownCommand(args.task, args.cwd, io);
  const { runCommand } = await import("./commands/run.js");
  await taskStarts();
  return await runCommand(args, io);
}

/** `cairn resume`: the same arguments as run, a stored task carried on headless. */
export async function resumeMain(rest: string[], io: Io): Promise<number> {
  const { parseRunArgs, runHelp } = await import("@cairn/host/run-args");
  const args = parseRunArgs(rest, process.cwd());
  if (args === "help") {
    io.stdout(`Usage: cairn resume <id> [message] [options]\n\n${runHelp.split("\n").slice(3).join("\n")}\n`);
    return 0;
  }
  const { resumeCommand } = await import("./commands/resume.js");
  await taskStarts();
  return await resumeCommand(args, io);
}

/** A task is about to run (the command's modules, core among them, are loaded): its compiled code is worth caching, once the flags it changes are put back. */
async function taskStarts(): Promise<void> {
  restoreFlags = (await import("@cairn/core")).restoreWasmTiering;
  taskStarted = true;
}

/** The entry of the code-cached bundle: bin/cairn.js gives it only `run …` and `resume …` argument lists. */
export async function main(argv: string[], io: Io = defaultIo()): Promise<number> {
  return await guarded(argv, io, () => (argv[0] === "resume" ? resumeMain(argv.slice(1), io) : runMain(argv.slice(1), io)));
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").trim();
}

/**
 * A task that starts with a command-shaped word no command or workflow has (/deplyo) is bad usage:
 * refused before any session or request, like an unknown flag (the task would refuse it anyway).
 */
async function refuseUnknownCommand(task: string, cwd: string, io: Io): Promise<void> {
  if (!task.trimStart().startsWith("/")) return;
  const { cairnHome, parseSlashCommand, unknownCommandText } = await import("@cairn/core");
  const command = parseSlashCommand(task, { cwd, home: cairnHome(io.env) });
  if (command?.kind === "unknown") throw new UsageError(unknownCommandText(command.name));
}
