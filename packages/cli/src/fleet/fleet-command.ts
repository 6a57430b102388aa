import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";

export const fleetHelp = `Usage: cairn fleet <command>

Many tasks on many machines: a queue in Redis (CAIRN_REDIS_URL, default redis://127.0.0.1:6379)
that any number of workers take jobs from.

  cairn fleet add --repo <repo> [--ref <rev>] [run options] -- "task"   queue a task; prints its job id
  cairn fleet add --tasks <file.jsonl> [run options]                   queue a batch
  cairn fleet worker [--concurrency N] [--allow ...]                   work jobs until stopped
  cairn fleet status [--json]                                          every job and its state
  cairn fleet watch <job> [--json]                                     a job's events, live
  cairn fleet result <job> [--json]                                    what a job left: branch, files, answer, cost
  cairn fleet cancel <job>                                             stop a job (waiting or running)
  cairn fleet retry <job>                                              run a failed or finished job again
  cairn fleet secret [--new]                                           the secret jobs are signed with, for other machines

Each command has --help.`;

/** `cairn fleet …`: each subcommand is loaded when it runs, like the CLI's own commands. */
export async function fleetCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "add":
      return (await import("./add-command.js")).addCommand(rest, io);
    case "worker":
      return (await import("./worker-command.js")).workerCommand(rest, io);
    case "status":
      return (await import("./inspect-commands.js")).statusCommand(rest, io);
    case "result":
      return (await import("./inspect-commands.js")).resultCommand(rest, io);
    case "watch":
      return (await import("./watch-command.js")).watchCommand(rest, io);
    case "cancel":
      return (await import("./control-commands.js")).cancelCommand(rest, io);
    case "retry":
      return (await import("./control-commands.js")).retryCommand(rest, io);
    case "secret":
      return (await import("./secret-command.js")).secretCommand(rest, io);
    case undefined:
    case "--help":
    case "-h":
    case "help":
      io.stdout(`${fleetHelp}\n`);
      return sub === undefined ? 2 : 0;
    default:
      throw new UsageError(`Unknown fleet command "${sub}". Run cairn fleet --help.`);
  }
}
