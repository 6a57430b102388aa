import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { writeFileAtomicSync } from "../disk/atomic-write.js";
import { z } from "zod";
import { DamagedMetadataError, historyEntrySchema, readTaskMetadata } from "./task-metadata.js";
import { processRunning, thisProcess } from "./process-identity.js";
import type { TaskMetadata } from "./task-store.js";

export type HistoryEntry = Pick<
  TaskMetadata,
  "id" | "title" | "workspace" | "provider" | "model" | "mode" | "status" | "createdAt" | "updatedAt" | "turns" | "totalCostUsd" | "pid" | "processStart" | "parent"
> & {
  /** Every token the task sent and received, for a task whose price is unknown (an index written before it was kept has none). */
  tokens?: number;
};

/** The entry's fields as the index keeps them: the metadata's, checked the same way, and the sums of them. */
const indexEntrySchema = historyEntrySchema.extend({ processStart: z.string().optional(), tokens: z.number().optional() });

/**
 * What a person should read as a task's status: a "running" task whose process is gone (or a
 * zombie, or a pid since given to another program, see process-identity.ts) was interrupted.
 * Every host shows it in the same words (statusWord in @cairn/host/task-status).
 */
export function shownStatus(entry: Pick<HistoryEntry, "status" | "pid" | "processStart">): HistoryEntry["status"] | "interrupted" {
  return entry.status === "running" && !processRunning({ pid: entry.pid, start: entry.processStart ?? "", host: thisProcess.host }) ? "interrupted" : entry.status;
}

const indexFile = (home: string) => path.join(home, "tasks", "index.json");

function entryOf(meta: TaskMetadata): HistoryEntry {
  const { id, title, workspace, provider, model, mode, status, createdAt, updatedAt, turns, totalCostUsd, pid, usage } = meta;
  const tokens = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens + usage.output_tokens;
  return {
    id,
    title,
    workspace,
    provider,
    model,
    mode,
    status,
    createdAt,
    updatedAt,
    turns,
    totalCostUsd,
    pid,
    tokens,
    ...(meta.processStart ? { processStart: meta.processStart } : {}),
    ...(meta.parent ? { parent: meta.parent } : {}),
  };
}

function readIndex(home: string): HistoryEntry[] | undefined {
  try {
    const parsed = z.array(indexEntrySchema).safeParse(JSON.parse(readFileSync(indexFile(home), "utf8")));
    // A damaged index is only a cache: undefined makes the caller rebuild it from the task folders.
    return parsed.success ? (parsed.data as HistoryEntry[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Scans the task folders: the source of truth the index is rebuilt from. */
function scanTasks(home: string, only?: (id: string) => boolean): { entries: HistoryEntry[]; warnings: string[] } {
  const dir = path.join(home, "tasks");
  if (!existsSync(dir)) return { entries: [], warnings: [] };
  const entries: HistoryEntry[] = [];
  const warnings: string[] = [];
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    if (!name.isDirectory() || (only && !only(name.name))) continue;
    const file = path.join(dir, name.name, "metadata.json");
    try {
      const meta = readTaskMetadata(file);
      // The folder is the task; a metadata.json naming another id was edited and is not listed under it.
      if (meta.id !== name.name) {
        warnings.push(`Skipped task ${name.name}: ${file} names another id (${JSON.stringify(meta.id)}); it was edited or damaged.`);
        continue;
      }
      entries.push(entryOf(meta));
    } catch (error) {
      const problem = error instanceof DamagedMetadataError ? error.message : `${file} is missing or unreadable (${(error as Error).message.split("\n")[0]})`;
      warnings.push(`Skipped task ${name.name}: ${problem}; cairn delete ${name.name} removes it.`);
    }
  }
  return { entries, warnings };
}

/**
 * ISO times in order compare as plain strings. localeCompare would load ICU's collation, ~6 ms of
 * every task's CPU, where the history index is written.
 */
const byTime = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const newestFirst = (a: HistoryEntry, b: HistoryEntry) => byTime(b.updatedAt, a.updatedAt);

/**
 * Every task, newest first; with `workspace`, only the tasks run in that folder or one inside it.
 * A missing or damaged index is rebuilt from the task folders; folders the index does not know
 * (another process wrote at the same time) are added. A task stored before its first message (an
 * editor's new session) is not listed until it has one.
 */
export function listTasks(home: string, options: { workspace?: string } = {}): { entries: HistoryEntry[]; warnings: string[]; rebuilt: boolean } {
  const shown = (entries: HistoryEntry[]) => entries.filter((e) => started(e) && (options.workspace === undefined || within(options.workspace)(e.workspace)));
  const index = readIndex(home);
  if (!index) {
    const { entries, warnings } = scanTasks(home);
    if (existsSync(path.join(home, "tasks"))) writeFileAtomicSync(indexFile(home), JSON.stringify(entries.sort(newestFirst)));
    return { entries: shown(entries), warnings, rebuilt: true };
  }
  const known = new Set(index.map((e) => e.id));
  const present = existsSync(path.join(home, "tasks")) ? new Set(readdirSync(path.join(home, "tasks"))) : new Set<string>();
  const missing = scanTasks(home, (id) => !known.has(id));
  const entries = [...index.filter((e) => present.has(e.id)), ...missing.entries].sort(newestFirst);
  return { entries: shown(entries), warnings: missing.warnings, rebuilt: false };
}

/** Whether a task's workspace is `dir` or inside it, as given and as it really is (a link, /tmp on macOS). */
function within(dir: string): (workspace: string) => boolean {
  const given = path.resolve(dir);
  let real = given;
  try {
    real = realpathSync(given);
  } catch {
    // a folder that is not there has no tasks but those recorded under its name
  }
  const inside = (root: string, workspace: string) => workspace === root || workspace.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
  return (workspace) => inside(given, workspace) || inside(real, workspace);
}

/** One row of a history: a task, and how deep under the task it came from it is (0: a task of its own). */
export type HistoryRow = { entry: HistoryEntry; depth: number };

/**
 * The tasks as a person reads them: each task that came from another (its sub-agents, the task it
 * handed over to) under that one, oldest first as they happened; the rest newest first, by the
 * latest activity of anything under them. A task whose parent is not listed (another workspace,
 * deleted), or whose links go round in a loop, stands on its own. `limit` counts tasks of their own,
 * each shown with everything under it.
 */
export function historyRows(entries: readonly HistoryEntry[], limit = Infinity): HistoryRow[] {
  const listed = new Set(entries.map((e) => e.id));
  const under = new Map<string, HistoryEntry[]>();
  const roots: HistoryEntry[] = [];
  for (const entry of entries) {
    const parent = entry.parent?.id;
    if (parent !== undefined && listed.has(parent) && parent !== entry.id) under.set(parent, [...(under.get(parent) ?? []), entry]);
    else roots.push(entry);
  }
  const rows: HistoryRow[] = [];
  const seen = new Set<string>();
  const add = (entry: HistoryEntry, depth: number) => {
    // A link loop (edited metadata) would otherwise never end.
    if (seen.has(entry.id)) return;
    seen.add(entry.id);
    rows.push({ entry, depth });
    for (const child of [...(under.get(entry.id) ?? [])].sort((a, b) => byTime(a.createdAt, b.createdAt))) add(child, depth + 1);
  };
  // Each task has one parent, so what hangs under a root has no loop to walk round.
  const latest = (entry: HistoryEntry): string => (under.get(entry.id) ?? []).map(latest).reduce((newest, at) => (at > newest ? at : newest), entry.updatedAt);
  const ordered = roots.map((entry) => ({ entry, at: latest(entry) })).sort((a, b) => byTime(b.at, a.at));
  for (const { entry } of ordered.slice(0, limit)) add(entry, 0);
  // Tasks whose links go round in a loop (edited metadata) hang under no root: listed on their own all the same.
  let own = Math.min(ordered.length, limit);
  for (const entry of entries) if (!seen.has(entry.id) && own++ < limit) add(entry, 0);
  return rows;
}

/** Not a task opened and never prompted (SessionRunner.create: no title until its first message, no turn yet); `cairn resume <id>` still opens one. */
const started = (entry: HistoryEntry) => entry.title !== "" || entry.turns > 0;

/** Upserts one task's entry; called on every metadata write. */
export function updateHistoryIndex(home: string, meta: TaskMetadata): void {
  mkdirSync(path.join(home, "tasks"), { recursive: true });
  const entries = (readIndex(home) ?? scanTasks(home).entries).filter((e) => e.id !== meta.id);
  entries.push(entryOf(meta));
  // A cache of the task folders (rebuilt when damaged): whole, but not worth an fsync on every step.
  writeFileAtomicSync(indexFile(home), JSON.stringify(entries.sort(newestFirst)), { durable: false });
}

export function removeFromHistoryIndex(home: string, id: string): void {
  const entries = readIndex(home);
  if (entries) writeFileAtomicSync(indexFile(home), JSON.stringify(entries.filter((e) => e.id !== id)));
}
