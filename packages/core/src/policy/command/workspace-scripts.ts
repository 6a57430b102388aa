import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { managerCommand, packageManagers } from "./package-managers.js";
import type { CommandView } from "./risk-checks.js";

/**
 * Commands whose behaviour the workspace writes: `npm test` runs package.json's `test` script,
 * `make` a Makefile's recipes, `just` a justfile's. A rule that allows `npm test` was given for the
 * script as it was; once the task rewrites the script, the same words run something else. This
 * file names, for each command of a command line, the files that define what it runs; the task
 * compares them with their content at its start (script-baseline.ts).
 *
 * `part`: "scripts" compares only package.json's (or composer.json's) scripts, so adding a
 * dependency does not count; "whole" compares the file.
 */
export type ScriptSource = { runner: string; file: string; part: "scripts" | "whole" };

/** Files npm, pnpm, yarn and bun read in a package's folder that decide what their commands run. */
const nodeFiles: readonly { name: string; part: ScriptSource["part"] }[] = [
  { name: "package.json", part: "scripts" },
  { name: ".npmrc", part: "whole" }, // script-shell, node-options
  { name: ".yarnrc", part: "whole" },
  { name: ".yarnrc.yml", part: "whole" }, // yarnPath runs any file
  { name: ".pnpmfile.cjs", part: "whole" }, // hooks run on install
  { name: "bunfig.toml", part: "whole" }, // preload scripts
];

/** Package-manager commands that run nothing of the package's: they only read or print. */
const readOnlyCommands = new Set(["view", "ls", "ll", "outdated", "whoami", "help", "help-search", "search", "explain", "root", "prefix", "get", "ping", "docs", "bugs", "repo", "fund", "completion"]);

const otherRunners: Record<string, { files: readonly string[]; part: ScriptSource["part"]; dirOption: readonly string[]; fileOption: readonly string[] }> = {
  make: { files: ["GNUmakefile", "makefile", "Makefile"], part: "whole", dirOption: ["-C", "--directory"], fileOption: ["-f", "--file", "--makefile"] },
  gmake: { files: ["GNUmakefile", "makefile", "Makefile"], part: "whole", dirOption: ["-C", "--directory"], fileOption: ["-f", "--file", "--makefile"] },
  just: { files: ["justfile", "Justfile", ".justfile"], part: "whole", dirOption: ["-d", "--working-directory"], fileOption: ["-f", "--justfile"] },
  task: { files: ["Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml"], part: "whole", dirOption: ["-d", "--dir"], fileOption: ["-t", "--taskfile"] },
  composer: { files: ["composer.json"], part: "scripts", dirOption: ["-d", "--working-dir"], fileOption: [] },
};

/**
 * The files that define what the command line's commands run, as absolute paths (they may not
 * exist). Folders come from the workspace, a `cd` earlier in the line, and the commands' own
 * folder options (`npm --prefix x`, `make -C x`); npm and its peers also read every package.json
 * up to the workspace root, and the workspace packages when told to run in all of them.
 */
export function scriptSources(views: readonly CommandView[], cwd: string): ScriptSource[] {
  const found = new Map<string, ScriptSource>();
  const add = (source: ScriptSource) => found.set(`${source.file}\0${source.part}`, source);
  const dirs = [cwd];
  let current = cwd;
  for (const view of views) {
    if ((view.name === "cd" || view.name === "pushd") && typeof view.args[0] === "string" && !view.args[0].startsWith("-")) {
      current = path.resolve(current, view.args[0]);
      dirs.push(current);
      continue;
    }
    if (view.name === undefined) continue;
    if (packageManagers.has(view.name) || (view.name === "node" && view.args.some((a) => a === "--run" || a?.startsWith("--run=") === true))) {
      if (runsNothing(view)) continue;
      for (const dir of nodeDirs(view, dirs, cwd)) {
        for (const file of nodeFiles) add({ runner: view.name, file: path.join(dir, file.name), part: file.part });
      }
      continue;
    }
    const runner = otherRunners[view.name];
    if (runner === undefined) continue;
    const named = optionValues(view.args, runner.fileOption);
    const optionDirs = optionValues(view.args, runner.dirOption);
    for (const base of dirs) {
      const roots = optionDirs.length > 0 ? optionDirs.map((d) => path.resolve(base, d)) : [base];
      for (const root of roots) {
        const files = named.length > 0 ? named.map((f) => path.resolve(root, f)) : runner.files.map((f) => path.join(root, f));
        for (const file of files) add({ runner: view.name, file, part: runner.part });
      }
    }
  }
  return [...found.values()];
}

function runsNothing({ name, args }: CommandView): boolean {
  if (name === "node") return false;
  if (args.length > 0 && args.every((a) => a === "--version" || a === "-v" || a === "--help" || a === "-h")) return true;
  const first = args.find((a) => a === undefined || !a.startsWith("-"));
  if (first === undefined || name === undefined) return false;
  const command = managerCommand(name, first);
  if (command === "config") return true;
  return command !== undefined && readOnlyCommands.has(command);
}

const nodeDirOptions = ["--prefix", "-C", "--dir", "--cwd"];
const allPackages = ["--workspaces", "-ws", "-r", "--recursive", "--filter", "-F", "-w", "--workspace", "workspaces", "foreach"];

/** The folders whose package files the command reads: its own, every one up to the workspace root, and the workspace's packages when it runs in them. */
function nodeDirs(view: CommandView, dirs: readonly string[], cwd: string): string[] {
  const out = new Set<string>();
  const own = optionValues(view.args, nodeDirOptions);
  for (const base of dirs) {
    for (const dir of own.length > 0 ? own.map((d) => path.resolve(base, d)) : [base]) {
      for (let at = dir; ; at = path.dirname(at)) {
        out.add(at);
        if (at === cwd || !at.startsWith(`${cwd}${path.sep}`)) break;
      }
    }
  }
  if (view.args.some((a) => a !== undefined && (allPackages.includes(a) || a.startsWith("--workspace") || a.startsWith("--filter")))) {
    for (const dir of [...out]) for (const pkg of workspacePackages(dir)) out.add(pkg);
  }
  return [...out];
}

/** Values of options given as `-f x`, `-fx` (short) or `--file=x`, `--file x`. */
function optionValues(args: readonly (string | undefined)[], options: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) continue;
    if (arg === "--") break;
    for (const option of options) {
      if (arg === option && typeof args[i + 1] === "string") values.push(args[i + 1]!);
      else if (option.startsWith("--") && arg.startsWith(`${option}=`)) values.push(arg.slice(option.length + 1));
      else if (!option.startsWith("--") && arg.startsWith(option) && arg.length > option.length) values.push(arg.slice(option.length));
    }
  }
  return values;
}

/**
 * The package folders of a monorepo rooted at `dir`: package.json's `workspaces` and
 * pnpm-workspace.yaml's `packages`, each a folder or a folder followed by `/*` or `/**`.
 */
function workspacePackages(dir: string): string[] {
  const patterns: string[] = [];
  try {
    const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { workspaces?: unknown };
    const list = Array.isArray(manifest.workspaces) ? manifest.workspaces : (manifest.workspaces as { packages?: unknown } | undefined)?.packages;
    if (Array.isArray(list)) patterns.push(...list.filter((p): p is string => typeof p === "string"));
  } catch {
    // no package.json, or not JSON: no packages from it
  }
  try {
    for (const line of readFileSync(path.join(dir, "pnpm-workspace.yaml"), "utf8").split("\n")) {
      const item = /^\s*-\s*['"]?([^'"#]+?)['"]?\s*$/.exec(line);
      if (item?.[1] !== undefined) patterns.push(item[1]);
    }
  } catch {
    // no pnpm-workspace.yaml
  }
  const out: string[] = [];
  for (const pattern of patterns) {
    if (pattern.startsWith("!")) continue;
    const fixed = pattern.replace(/\/\*\*?$/, "");
    if (/[*?[{]/.test(fixed)) continue;
    const base = path.resolve(dir, fixed);
    if (fixed === pattern) {
      out.push(base);
      continue;
    }
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { withFileTypes: true })) if (entry.isDirectory()) out.push(path.join(base, entry.name));
  }
  return out;
}
