import { existsSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { updateHistoryIndex } from "../storage/history.js";
import { isValidTaskId, type TaskLink, type TaskMetadata } from "../storage/task-store.js";
import { parseTaskFile, TaskFileError, type ExportedTask } from "./task-file.js";

export type ImportedTask = {
  /** The id the task has in this CAIRN_HOME (its own, unless a task here has it). */
  id: string;
  /** The id it had where it was exported. */
  exportedId: string;
  title: string;
  workspace: string;
  /** The provider and model a resume asks (the file's choice: a resume's --provider and --model pick others). */
  model: string;
  /** Its sub-agents' tasks, imported with it. */
  subagents: number;
  redactions: number;
};

/**
 * Restores an exported task (and its sub-agents' tasks) under `home`, where cairn show and cairn
 * resume open it as any other. A task keeps its id unless one here has it; links between the
 * tasks of the file follow their new ids. `cwd` points it at another folder.
 *
 * The file is someone else's: it brings a conversation, never power. Its "always allow for this
 * task" rules go wherever it is imported (approvals are granted by the person who runs the task,
 * not carried in a file), a link to a task the file does not hold goes (it would name one of this
 * home's tasks), and a negative cost or token count (which would hold off --max-budget-usd on
 * resume) is refused.
 * Throws TaskFileError (one line) for a file it cannot take, or a task whose folder is not here and
 * no `cwd` given (it could be shown, but not resumed).
 */
export function importTask(o: { home: string; file: string; cwd?: string }): ImportedTask {
  let text: string;
  try {
    text = readFileSync(o.file, "utf8");
  } catch (error) {
    throw new TaskFileError(`Cannot read ${o.file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give the path of a file cairn export wrote.`);
  }
  const parsed = parseTaskFile(text, o.file);
  const workspace = parsed.tasks[0]!.metadata.workspace;
  parsed.tasks.forEach((task, index) => checkCounts(task.metadata as TaskMetadata, `tasks.${index}.metadata`, o.file));
  if (o.cwd === undefined && (!path.isAbsolute(workspace) || !existsSync(workspace))) {
    throw new TaskFileError(`The task in ${o.file} worked in ${workspace}, which is not on this machine: import it with --cwd <folder> (a copy of that workspace).`);
  }
  const tasksDir = path.join(o.home, "tasks");
  mkdirSync(tasksDir, { recursive: true });

  const ids = new Map<string, string>();
  for (const task of parsed.tasks) ids.set(task.metadata.id, freeId(tasksDir, task.metadata.id, ids));
  // Only links between the file's own tasks survive, under their new ids.
  const relinked = (link: TaskLink): TaskLink[] => (ids.has(link.id) ? [{ relation: link.relation, id: ids.get(link.id)! }] : []);

  // Sub-agents first, the task last: a task is never listed before the records its links name.
  for (const task of [...parsed.tasks].reverse()) {
    const { processStart: _start, taskRules: _rules, parent, children, ...meta } = task.metadata as TaskMetadata;
    const restored: TaskMetadata = {
      ...meta,
      id: ids.get(meta.id)!,
      // No process runs it here: a task exported while running shows as interrupted, and resumes.
      pid: 0,
      checkpoints: [],
      ...(parent && relinked(parent).length > 0 ? { parent: relinked(parent)[0]! } : {}),
      ...(children ? { children: children.flatMap(relinked) } : {}),
      // Sub-agents work where their task does: the one folder checked above (and printed), whatever else the file says.
      workspace: o.cwd ?? workspace,
    };
    writeTask(o.home, restored, task);
    updateHistoryIndex(o.home, restored);
  }
  const [first] = parsed.tasks;
  const id = ids.get(first!.metadata.id)!;
  return {
    id,
    exportedId: first!.metadata.id,
    title: first!.metadata.title,
    workspace: o.cwd ?? first!.metadata.workspace,
    model: `${first!.metadata.provider}/${first!.metadata.model}`,
    subagents: parsed.tasks.length - 1,
    redactions: parsed.redactions.count,
  };
}

/** A cost or token count below zero is no task's: it would be counted against the budget of a resume. */
function checkCounts(meta: TaskMetadata, where: string, file: string): void {
  const counts: Array<[string, number | null]> = [["totalCostUsd", meta.totalCostUsd], ...Object.entries(meta.usage).map(([key, n]): [string, number] => [`usage.${key}`, n])];
  for (const [key, n] of counts) {
    if (n !== null && !(Number.isFinite(n) && n >= 0)) throw new TaskFileError(`${file} is damaged ("${where}.${key}": ${n} is below zero); export the task again.`);
  }
}

/** `wanted` if no task here (nor one imported just now) has it, else a new id of the shape TaskStore makes. */
function freeId(tasksDir: string, wanted: string, taken: Map<string, string>): string {
  const used = (id: string) => existsSync(path.join(tasksDir, id)) || [...taken.values()].includes(id);
  if (isValidTaskId(wanted) && !used(wanted)) return wanted;
  for (;;) {
    const id = `${new Date().toISOString().slice(0, 10).replaceAll("-", "")}-${randomUUID().slice(0, 8)}`;
    if (!used(id)) return id;
  }
}

/**
 * The task's folder, whole or not at all: written in a folder of its own beside tasks/ (where no
 * listing finds it half written, nor a crash leaves a stray "task"), then renamed into place; a
 * rename that finds the id taken by a task created meanwhile fails rather than mixing two tasks.
 */
function writeTask(home: string, meta: TaskMetadata, task: ExportedTask): void {
  const temp = path.join(home, "importing", randomUUID());
  mkdirSync(temp, { recursive: true, mode: 0o700 });
  try {
    const jsonl = (items: readonly unknown[]) => items.map((item) => `${JSON.stringify(item)}\n`).join("");
    writeFileSync(path.join(temp, "conversation.jsonl"), jsonl(task.conversation), { mode: 0o600 });
    writeFileSync(path.join(temp, "events.jsonl"), jsonl(task.events), { mode: 0o600 });
    writeFileSync(path.join(temp, "metadata.json"), `${JSON.stringify(meta, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, path.join(home, "tasks", meta.id));
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  } finally {
    rmdirEmpty(path.dirname(temp));
  }
}

/** Another import may be using the folder at the same time: then it stays, for that one to remove. */
function rmdirEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or gone already
  }
}
