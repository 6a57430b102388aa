import type { Mode } from "../policy/mode.js";
import { thousands } from "../text/thousands.js";

export type EnvironmentSnapshot = {
  now: Date;
  mode: Mode;
  /** Tokens the conversation uses, and the model's window. */
  contextTokens: number;
  contextWindow: number;
};

function formatTime(now: Date): string {
  return `${now.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

const percentOf = (env: EnvironmentSnapshot): number => Math.round((env.contextTokens / env.contextWindow) * 100);

/**
 * One line the model gets with a turn's results when what it says has changed (see environmentKey):
 * time, mode, and how full the window is.
 */
export function environmentLine(env: EnvironmentSnapshot): string {
  const percent = percentOf(env);
  return `[Environment: ${formatTime(env.now)} · ${env.mode.toUpperCase()} mode · context ${thousands(env.contextTokens)} / ${thousands(env.contextWindow)} tokens (${percent}%)]`;
}

/**
 * What the environment line says, at the grain at which the model is told again: the hour (the line
 * gives the minute), the mode, and how full the window is in tenths. Every reply's results carried the
 * line (~110 bytes a reply, issue 26); now a turn carries it only when this key changed.
 */
export function environmentKey(env: EnvironmentSnapshot): string {
  return `${env.now.toISOString().slice(0, 13)} ${env.mode} ${Math.floor((env.contextTokens / env.contextWindow) * 10)}`;
}

/** What the first message adds to the task: where the work happens and what is there. */
export function initialEnvironment(options: { cwd: string; now: Date; mode: Mode; listing: string }): string {
  return `<environment_details>
Time: ${formatTime(options.now)}
Mode: ${options.mode.toUpperCase()}
Workspace: ${options.cwd}
Files (a first look; use list_files for more):
${options.listing.trim()}
</environment_details>`;
}
