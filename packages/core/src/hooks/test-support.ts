/** Helpers for the hook tests: real temp folders, real shell scripts, real settings files. */
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { HookEventName, HookSession } from "./events.js";
import { projectConfig, trustProjectConfig } from "../session/project-config.js";
import { loadHooks } from "./load-hooks.js";
import type { HookRunner, HookRunnerOptions } from "./hook-runner.js";

export type HookSandbox = {
  /** CAIRN_HOME. */
  home: string;
  /** The workspace: hooks run here. */
  cwd: string;
  session: HookSession;
  /** Writes an executable `#!/bin/sh` script under the workspace's hooks/ folder; returns the command that runs it. */
  script(name: string, body: string): Promise<string>;
  /** Writes `{"hooks": hooks}` to the global (home) or project (.cairn) settings file; a project file is then trusted. */
  settings(where: "global" | "project", hooks: HookSettings): Promise<void>;
  /** loadHooks for this sandbox; fails the test on warnings unless `allowWarnings`. */
  load(options?: { runner?: HookRunnerOptions; allowWarnings?: boolean }): { runner: HookRunner; warnings: string[]; sources: string[] };
  read(relative: string): Promise<string>;
  cleanup(): Promise<void>;
};

export type HookSettings = Partial<Record<HookEventName | (string & {}), Array<{ matcher?: string; hooks: Array<Record<string, unknown>> }>>>;

export async function hookSandbox(): Promise<HookSandbox> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-hooks-")));
  const home = path.join(root, "home");
  const cwd = path.join(root, "workspace");
  await mkdir(path.join(cwd, "hooks"), { recursive: true });
  await mkdir(path.join(cwd, ".cairn"), { recursive: true });
  await mkdir(home, { recursive: true });
  return {
    home,
    cwd,
    session: { sessionId: "session-1", cwd, permissionMode: "default" },
    async script(name, body) {
      const file = path.join(cwd, "hooks", name);
      await writeFile(file, `#!/bin/sh\n${body}\n`);
      await chmod(file, 0o755);
      return `./hooks/${name}`;
    },
    async settings(where, hooks) {
      const file = where === "global" ? path.join(home, "settings.json") : path.join(cwd, ".cairn", "settings.json");
      await writeFile(file, JSON.stringify({ hooks }, null, 2));
      // What `cairn trust` does: project hooks run only once the person trusted them.
      if (where === "project") trustProjectConfig(home, projectConfig({ home, cwd }));
    },
    load(options = {}) {
      const loaded = loadHooks({ home, cwd, ...(options.runner ? { runner: options.runner } : {}) });
      if (!options.allowWarnings && loaded.warnings.length > 0) throw new Error(`unexpected warnings: ${loaded.warnings.join("\n")}`);
      if (!loaded.hooks) throw new Error("no hooks were loaded");
      return { runner: loaded.hooks, warnings: loaded.warnings, sources: loaded.sources };
    },
    read: (relative) => readFile(path.join(cwd, relative), "utf8"),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** One matcher group running `command`. */
export function on(command: string, options: { matcher?: string; timeout?: number } = {}) {
  return [{ ...(options.matcher === undefined ? {} : { matcher: options.matcher }), hooks: [{ type: "command", command, ...(options.timeout ? { timeout: options.timeout } : {}) }] }];
}

/** Whether a process runs (a zombie does not count), checked independently of the code under test. */
export async function isRunning(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
