import type { RunArgs } from "@cairn/host/run-args";
import { parseRunArgs } from "@cairn/host/run-args";
import { UsageError } from "@cairn/host/usage-error";

/** A cwd no one types: tells whether --cwd was given to a fleet job, where the worker decides it. */
const noCwd = "\u0000fleet-cwd";

/**
 * Checks a fleet job's `cairn run` options with the run command's own parser, so a job that would
 * not start is refused when it is added, not on a worker hours later. The options are kept as
 * given (every run option, present and future, travels unchanged); the task comes separately.
 */
export function validateRunFlags(flags: string[]): { flags: string[]; args: RunArgs } {
  // The worker adds --json, --cwd and the task after these: a "--" among them would turn those into words of the task.
  if (flags.includes("--")) throw new UsageError('"--" is not a run option; the task goes after it: cairn fleet add --repo <repo> [options] -- "task".');
  const args = parseRunArgs([...flags], noCwd);
  if (args === "help") throw new UsageError("Run options are those of cairn run (see cairn run --help).");
  if (args.task !== "") throw new UsageError(`"${args.task}" is not a run option; the task goes after --: cairn fleet add --repo <repo> [options] -- "task".`);
  if (args.cwd !== noCwd) throw new UsageError("--cwd has no meaning for a fleet job: the worker runs it in a checkout of --repo.");
  if (args.json) throw new UsageError("--json is the worker's to set: watch a job's events with cairn fleet watch <job> --json.");
  if (args.images?.length) throw new UsageError("--image names a file on this machine, which workers elsewhere cannot read; put the picture in the repository and name it in the task.");
  if (args.continue) throw new UsageError("--continue has no meaning for a fleet job: each job starts a fresh task in a fresh checkout.");
  return { flags: [...flags], args };
}

/** A job's options from a tasks file ({"max-turns": 5, "yolo": true}) as command-line flags. */
export function flagsFromOptions(options: Record<string, unknown>): string[] {
  const flags: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    const flag = `--${key}`;
    if (value === true) flags.push(flag);
    else if (value === false || value === null || value === undefined) continue;
    else if (Array.isArray(value)) flags.push(flag, value.map(String).join(","));
    else if (typeof value === "string" || typeof value === "number") flags.push(flag, String(value));
    else throw new UsageError(`option "${key}" must be a string, a number, true or a list, got ${JSON.stringify(value)}.`);
  }
  return flags;
}
