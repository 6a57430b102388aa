import { lstatSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { ScriptSource } from "./workspace-scripts.js";

/** Files in the workspace's root whose start a task records at once (the common case, cheaply). */
const rootFiles: readonly { name: string; part: ScriptSource["part"] }[] = [
  { name: "package.json", part: "scripts" }, { name: ".npmrc", part: "whole" }, { name: ".yarnrc", part: "whole" },
  { name: ".yarnrc.yml", part: "whole" }, { name: ".pnpmfile.cjs", part: "whole" }, { name: "bunfig.toml", part: "whole" },
  { name: "GNUmakefile", part: "whole" }, { name: "makefile", part: "whole" }, { name: "Makefile", part: "whole" },
  { name: "justfile", part: "whole" }, { name: "Justfile", part: "whole" }, { name: "Taskfile.yml", part: "whole" },
  { name: "composer.json", part: "scripts" },
];

/**
 * A file's inode change time moves on every write, rename or link, and no program can set it
 * back; the kernel stamps it from a clock that may lag the real one by a tick, hence the margin.
 */
const clockMargin = 50;

/** What a script file defines now: its scripts, or all of it; null when it does not exist. */
function fingerprint(file: string, part: ScriptSource["part"]): string | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  if (part === "whole") return text;
  try {
    const parsed = JSON.parse(text) as { scripts?: unknown };
    return `scripts:${JSON.stringify(parsed.scripts ?? null)}`;
  } catch {
    return text; // not JSON: the package manager fails on it, but compare it whole all the same
  }
}

/** The latest change time of the path and of what it links to; undefined when it does not exist. */
function changedAt(file: string): number | undefined {
  try {
    const link = lstatSync(file);
    const target = statSync(file, { throwIfNoEntry: false });
    return Math.max(link.ctimeMs, target?.ctimeMs ?? 0);
  } catch {
    return undefined;
  }
}

/**
 * What the workspace's script files held when the task started, to tell whether the task (or
 * anyone during it) changed the scripts a command would run. The root's files are read when the
 * task starts; any other file the first time a command uses it, and then its content counts as
 * the start's only if nothing has changed the file since the task began (its change time). A file
 * changed before its first look has no known start: it counts as changed.
 */
export class ScriptBaseline {
  readonly #since: number;
  /** The fingerprint at the task's start; null: absent; undefined value: unknown (written during the task before the first look). */
  readonly #start = new Map<string, string | null | undefined>();

  /**
   * `startedAt`: when the task began (ms), for a task resumed from its journal; omitted for a task
   * starting now, whose files are as they are.
   */
  constructor(readonly cwd: string, startedAt?: number) {
    this.#since = startedAt ?? Date.now();
    const fresh = startedAt === undefined;
    for (const file of rootFiles) this.#look(path.join(cwd, file.name), file.part, fresh);
  }

  /** Whether the file's scripts (or the whole file) differ from the task's start. */
  changed(file: string, part: ScriptSource["part"]): boolean {
    const key = `${part}\0${file}`;
    if (!this.#start.has(key)) this.#look(file, part, false);
    const start = this.#start.get(key);
    if (start === undefined) return fingerprint(file, part) !== null; // unknown start; gone now: runs nothing
    return fingerprint(file, part) !== start;
  }

  /** The person let a command run these files as they are now: later commands compare with this. */
  accept(sources: readonly ScriptSource[]): void {
    for (const source of sources) this.#start.set(`${source.part}\0${source.file}`, fingerprint(source.file, source.part));
  }

  #look(file: string, part: ScriptSource["part"], fresh: boolean): void {
    const key = `${part}\0${file}`;
    // Content first, then the change time: a write between the two shows in the time.
    const now = fingerprint(file, part);
    const at = changedAt(file);
    if (now === null || at === undefined) {
      this.#start.set(key, null); // absent now; if it was there at the start, it is gone: nothing of it can run
      return;
    }
    this.#start.set(key, fresh || at < this.#since - clockMargin ? now : undefined);
  }
}
