import { resolveSettingsDiscovering } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";
import { UsageError } from "@cairn/host/usage-error";

/**
 * Loads the terminal UI (ink, React) only when it is used, so headless commands start without it.
 * Two settings are read once, when those modules load, and are set only for that moment (commands
 * the agent runs still see the person's environment):
 * - CI: ink draws nothing until it exits when it thinks it runs in CI; a person at a terminal is
 *   never "in CI", so the flag is hidden while ink loads.
 * - NODE_ENV: React picks its build from it; without "production" it loads the development build,
 *   several times slower per render. A NODE_ENV the person set is kept.
 */
async function loadSession(env: NodeJS.ProcessEnv): Promise<typeof import("../tui/interactive-session.js")> {
  const saved = { CI: env.CI, CONTINUOUS_INTEGRATION: env.CONTINUOUS_INTEGRATION, NODE_ENV: env.NODE_ENV };
  delete env.CI;
  delete env.CONTINUOUS_INTEGRATION;
  env.NODE_ENV ??= "production";
  try {
    return await import("../tui/interactive-session.js");
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
  }
}

/**
 * `cairn` and `cairn "task"` at a terminal: the interactive session. Same options as `cairn run`;
 * with no task it offers recent tasks to resume. Leaving (Esc or Ctrl-C twice) keeps the task
 * stored and resumable.
 */
export async function interactiveCommand(args: RunArgs, io: Io): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new UsageError('The interactive session needs a terminal. In scripts and pipes use: cairn run "describe the task".');
  }
  if (args.json) throw new UsageError("--json is for cairn run (headless); the interactive session draws on the terminal.");
  // Bad flags or settings end here with exit 2, before the terminal is taken over. The model's
  // endpoint is asked what it takes now, so a picture pasted before the first message is judged right.
  const settings = await resolveSettingsDiscovering({ cwd: args.cwd, env: io.env, overrides: overridesOf(args) });
  const { runInteractiveSession } = await loadSession(process.env);
  const { taskId, stillRunning } = await runInteractiveSession(args, io, settings, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
  if (taskId) io.stdout(`Task ${taskId} is saved. Carry it on with: cairn resume ${taskId} ["message"] (or run cairn and pick it).\n`);
  if (stillRunning) {
    // A tool that ignored the stop for 5 s: leave anyway, as a second Ctrl-C does in cairn run.
    io.stderr("cairn: the task did not stop in time; leaving it interrupted (resumable).\n");
    process.exit(130);
  }
  return 0;
}
