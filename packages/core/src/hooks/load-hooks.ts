import type { UntrustedConfig } from "../trust/untrusted.js";
import { loadHookConfig } from "./config.js";
import { HookRunner, type HookRunnerOptions } from "./hook-runner.js";

export type LoadedHooks = {
  /** Undefined when no hook is configured, so the loop can skip the work. */
  hooks: HookRunner | undefined;
  /** One per broken file or skipped entry, naming the file; never thrown. */
  warnings: string[];
  /** The files that contributed hooks, global first (worth a notice: project hooks are commands from the repository). */
  sources: string[];
  /** The workspace's settings file when its hooks were skipped because the person has not trusted it. */
  untrusted: UntrustedConfig[];
};

/**
 * The hooks of CAIRN_HOME/settings.json and the workspace's .cairn/settings.json, in that order;
 * the workspace's only when the person trusted its content (see trust/).
 */
export function loadHooks(options: { home: string; cwd: string; runner?: HookRunnerOptions }): LoadedHooks {
  const config = loadHookConfig(options);
  const hooks = config.hooks.length > 0 ? new HookRunner(config.hooks, options.runner) : undefined;
  return { hooks, warnings: config.warnings, sources: config.sources, untrusted: config.untrusted };
}
