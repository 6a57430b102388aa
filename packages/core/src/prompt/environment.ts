import type { Mode } from "../policy/mode.js";

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

/** One line the model gets with every turn's results: time, mode, and how full the window is. */
export function environmentLine(env: EnvironmentSnapshot): string {
  const percent = Math.round((env.contextTokens / env.contextWindow) * 100);
  return `[Environment: ${formatTime(env.now)} · ${env.mode.toUpperCase()} mode · context ${env.contextTokens.toLocaleString("en-US")} / ${env.contextWindow.toLocaleString("en-US")} tokens (${percent}%)]`;
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
