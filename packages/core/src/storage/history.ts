import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { writeFileAtomicSync } from "../disk/atomic-write.js";
import { z } from "zod";
import { DamagedMetadataError, historyEntrySchema, readTaskMetadata } from "./task-metadata.js";
import { processRunning, thisProcess } from "./process-identity.js";
import type { TaskMetadata } from "./task-store.js";

export type HistoryEntry = Pick<
  TaskMetadata,
  "id" | "title" | "workspace" | "provider" | "model" | "mode" | "status" | "createdAt" | "updatedAt" | "turns" | "totalCostUsd" | "pid" | "parent"
>;

/** What a person should read as a task's status: a "running" task whose process is gone (or a zombie, see process-identity.ts) was interrupted. */
export function shownStatus(entry: Pick<HistoryEntry, "status" | "pid">): HistoryEntry["status"] | "interrupted" {
  return entry.status === "running" && !processRunning({ pid: entry.pid, start: "", host: thisProcess.host }) ? "interrupted" : entry.status;
}

const indexFile = (home: string) => path.join(home, "tasks", "index.json");

function entryOf(meta: TaskMetadata): HistoryEntry {
  const { id, title, workspace, provider, model, mode, status, createdAt, updatedAt, turns, totalCostUsd, pid } = meta;
  return { id, title, workspace, provider, model, mode, status, createdAt, updatedAt, turns, totalCostUsd, pid, ...(meta.parent ? { parent: meta.parent } : {}) };
}

function readIndex(home: string): HistoryEntry[] | undefined {
  try {
    const parsed = z.array(historyEntrySchema).safeParse(JSON.parse(readFileSync(indexFile(home), "utf8")));
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

const newestFirst = (a: HistoryEntry, b: HistoryEntry) => b.updatedAt.localeCompare(a.updatedAt);

/**
 * Every task, newest first. A missing or damaged index is rebuilt from the task folders;
 * folders the index does not know (another process wrote at the same time) are added. A task
 * stored before its first message (an editor's new session) is not listed until it has one.
 */
export function listTasks(home: string): { entries: HistoryEntry[]; warnings: string[]; rebuilt: boolean } {
  const index = readIndex(home);
  if (!index) {
    const { entries, warnings } = scanTasks(home);
    if (existsSync(path.join(home, "tasks"))) writeFileAtomicSync(indexFile(home), JSON.stringify(entries.sort(newestFirst)));
    return { entries: entries.filter(started), warnings, rebuilt: true };
  }
  const known = new Set(index.map((e) => e.id));
  const present = existsSync(path.join(home, "tasks")) ? new Set(readdirSync(path.join(home, "tasks"))) : new Set<string>();
  const missing = scanTasks(home, (id) => !known.has(id));
  const entries = [...index.filter((e) => present.has(e.id)), ...missing.entries].sort(newestFirst);
  return { entries: entries.filter(started), warnings: missing.warnings, rebuilt: false };
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
