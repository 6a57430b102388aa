import type { RunArgs } from "../run-args.js";
import { parseRunArgs } from "../run-args.js";
import { UsageError } from "../usage-error.js";

/** A cwd no one types: tells whether --cwd was given to a fleet job, where the worker decides it. */
const noCwd = "\u0000fleet-cwd";

/**
 * Validates `cairn run` options for a fleet job with the run command's own parser (so a job that
 * would not start is refused when it is added, not on a worker hours later) and returns them in
 * canonical form, plus the task when one was given.
 */
export function validateRunFlags(argv: string[]): { flags: string[]; args: RunArgs } {
  const args = parseRunArgs(argv, noCwd);
  if (args === "help") throw new UsageError("Run options are those of cairn run (see cairn run --help).");
  if (args.cwd !== noCwd) throw new UsageError("--cwd has no meaning for a fleet job: the worker runs it in a checkout of --repo.");
  if (args.json) throw new UsageError("--json is the worker's to set: watch a job's events with cairn fleet watch <job> --json.");
  return { flags: runFlagsFrom(args), args };
}

/** The flags that parse back into these arguments (task, cwd and json excepted). */
export function runFlagsFrom(args: RunArgs): string[] {
  const flags: string[] = [];
  const put = (flag: string, value: string | number | undefined) => {
    if (value !== undefined) flags.push(flag, String(value));
  };
  put("--provider", args.provider);
  put("--model", args.model);
  put("--base-url", args.baseUrl);
  put("--fallback-model", args.fallbackModel);
  put("--protocol", args.protocol);
  put("--mode", args.mode);
  if (args.yolo) flags.push("--yolo");
  put("--auto-approve", args.autoApprove?.join(","));
  put("--max-turns", args.maxTurns);
  put("--max-budget-usd", args.maxBudgetUsd);
  put("--compaction", args.compaction);
  put("--retries", args.retry?.maxRetries);
  put("--sandbox", args.sandbox?.mode);
  put("--request-timeout", args.requestTimeout);
  return flags;
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
