import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { Message } from "../model/types.js";
import type { ParsedCall } from "../protocol/types.js";
import type { AgentEvent } from "../events/index.js";
import type { PendingResult, TaskJournal, TaskState } from "./task-journal.js";
import { appendWholeSync, writeFileAtomicSync } from "../disk/atomic-write.js";
import { updateHistoryIndex } from "./history.js";
import { DamagedMetadataError, readTaskMetadata } from "./task-metadata.js";
import { keptTaskRuleTexts } from "./task-rules.js";
import { processRunning, thisProcess, type ProcessIdentity } from "./process-identity.js";
import { hasTaskLock, holdsTaskLock, releaseTaskLock, TaskInUseError, takeTaskLock, taskLockHolder, taskLockName } from "./task-lock.js";
import type { ProtocolName } from "../model/protocol-name.js";

export type CheckpointRecord = { hash: string; messageIndex: number; label: string; createdAt: string };

export type TaskMetadata = TaskState & {
  id: string;
  /** The first line of the task, for lists. */
  title: string;
  workspace: string;
  provider: string;
  model: string;
  protocol: ProtocolName;
  createdAt: string;
  updatedAt: string;
  /** The process running the task; a "running" task whose process is gone was interrupted. */
  pid: number;
  /** When that process started (Linux clock ticks since boot), so a pid reused by another program is not taken for it. */
  processStart?: string;
  checkpoints: CheckpointRecord[];
  /** The task this one continues (a hand-off by new_task) or serves (a sub-agent of a use_subagents call). */
  parent?: TaskLink;
  /** Tasks started from this one: the task it handed over to, its sub-agents. */
  children?: TaskLink[];
  /** "Always allow for this task" rules, as the person granted them, so a resumed task keeps them (read back with loadTaskRules). */
  taskRules?: string[];
};

/** A link between two stored tasks, and what the one named is to the other. */
export type TaskLink = { id: string; relation: "handoff" | "subagent" };

export type { PendingResult } from "./task-journal.js";

export type LoadedConversation = {
  messages: Message[];
  /** Tool results recorded after the last message: their message's results never got written. */
  pending: PendingResult[];
  /** Lines that could not be read (a write cut by a crash); the rest loaded. */
  warnings: string[];
};

type Line = { message: Message } | { call_result: PendingResult } | { reset: true };

/** How often a running task's step counts are copied into the history index. */
const indexEveryMs = 2_000;

/** Events worth keeping: everything but token-by-token deltas, which the complete messages repeat. */
const skippedEvents = new Set<AgentEvent["type"]>(["text_delta", "reasoning_delta", "tool_call_delta", "message_start", "stream_discarded"]);

/** Whether two states of a task differ only in when they were written. */
function sameMetadata(a: TaskMetadata, b: TaskMetadata): boolean {
  return JSON.stringify({ ...a, updatedAt: "" }) === JSON.stringify({ ...b, updatedAt: "" });
}

export class TaskNotFoundError extends Error {
  override name = "TaskNotFoundError";
}

/** The task's folder exists but its metadata.json cannot be used; `id` names the folder. */
export class DamagedTaskError extends TaskNotFoundError {
  override name = "DamagedTaskError";
  constructor(
    readonly id: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a task id may be: the ids `create` makes (20261121-1a2b3c4d) and ids a caller chooses, as
 * long as they are one plain folder name: letters, digits, '-' and '_', not starting with '-'. An id
 * is part of a path under CAIRN_HOME/tasks, so a separator or ".." must never get through.
 */
const taskIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

export function isValidTaskId(id: string): boolean {
  return taskIdPattern.test(id);
}

/** Task storage as files: `tasks/<id>/` with metadata.json (atomic), conversation.jsonl and events.jsonl (append-only). */
export class TaskStore implements TaskJournal {
  readonly dir: string;
  private meta: TaskMetadata;

  private constructor(
    readonly home: string,
    meta: TaskMetadata,
  ) {
    if (!isValidTaskId(meta.id)) throw new TaskNotFoundError(`"${meta.id}" is not a task id (ids are letters, digits, '-' and '_'); see cairn history.`);
    this.meta = meta;
    this.dir = path.join(home, "tasks", meta.id);
  }

  static create(home: string, init: Pick<TaskMetadata, "workspace" | "provider" | "model" | "protocol" | "mode"> & { task: string; id?: string; parent?: TaskLink }): TaskStore {
    const now = new Date().toISOString();
    const id = init.id ?? `${now.slice(0, 10).replaceAll("-", "")}-${randomUUID().slice(0, 8)}`;
    if (!isValidTaskId(id)) throw new Error(`"${id}" is not a valid task id: use letters, digits, '-' and '_'.`);
    const meta: TaskMetadata = {
      id,
      title: (init.task.split("\n").find((l) => l.trim() !== "") ?? "").trim().slice(0, 120),
      workspace: init.workspace,
      provider: init.provider,
      model: init.model,
      protocol: init.protocol,
      mode: init.mode,
      status: "running",
      turns: 0,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      totalCostUsd: null,
      createdAt: now,
      updatedAt: now,
      pid: process.pid,
      ...(thisProcess.start ? { processStart: thisProcess.start } : {}),
      checkpoints: [],
      ...(init.parent ? { parent: init.parent } : {}),
    };
    const store = new TaskStore(home, meta);
    mkdirSync(store.dir, { recursive: true });
    store.lock();
    // Whole at once, but neither fsynced nor indexed: nothing is done yet that a crash could lose
    // (the first step's state write makes it durable), and the history finds a folder its index
    // does not name by reading it (listTasks); the index learns of the task when it changes.
    store.writeMetadata({ index: false, durable: false });
    store.indexedAt = Date.now();
    return store;
  }

  /**
   * Opens an existing task; a unique id prefix is enough. The task is the folder found under
   * CAIRN_HOME/tasks, and its metadata must name that same id: a metadata.json edited to say
   * "../../victim" is refused, so nothing derived from it can reach outside CAIRN_HOME.
   */
  static open(home: string, idOrPrefix: string): TaskStore {
    const tasksDir = path.join(home, "tasks");
    if (!isValidTaskId(idOrPrefix)) throw new TaskNotFoundError(`"${idOrPrefix}" is not a task id (ids are letters, digits, '-' and '_'); see cairn history.`);
    let id = idOrPrefix;
    if (!existsSync(path.join(tasksDir, id, "metadata.json"))) {
      const matches = existsSync(tasksDir) ? readdirSync(tasksDir).filter((name) => name.startsWith(idOrPrefix) && isValidTaskId(name)) : [];
      if (matches.length !== 1) {
        throw new TaskNotFoundError(
          matches.length === 0 ? `No task "${idOrPrefix}" in ${tasksDir}. See cairn history.` : `"${idOrPrefix}" matches ${matches.length} tasks; give more of the id.`,
        );
      }
      id = matches[0]!;
    }
    const file = path.join(tasksDir, id, "metadata.json");
    let meta: TaskMetadata;
    try {
      meta = readTaskMetadata(file);
    } catch (error) {
      if (!(error instanceof DamagedMetadataError)) throw error;
      throw new DamagedTaskError(id, `The task file ${error.message}; the task cannot be opened (other tasks are unaffected). Delete it with cairn delete ${id}, or restore the file from a backup.`);
    }
    if (meta.id !== id) {
      throw new TaskNotFoundError(`The task file ${file} names the task ${JSON.stringify(meta.id)}, not "${id}"; it was edited or damaged, so the task cannot be opened. Other tasks are unaffected.`);
    }
    return new TaskStore(home, meta);
  }

  get id(): string {
    return this.meta.id;
  }

  metadata(): TaskMetadata {
    return structuredClone(this.meta);
  }

  /**
   * Effective status: a task left "running" by a process that no longer runs was interrupted. A
   * zombie or a pid reused by another program does not run it (see process-identity.ts).
   */
  get interrupted(): boolean {
    return this.meta.status === "running" && !holdsTaskLock(this.dir) && this.heldBy() === undefined;
  }

  /**
   * The live process, other than this one, that has the task open for writing: the owner of its
   * lock. A task written by a Cairn from before locks has no lock file: then the process its
   * metadata names while it says "running".
   */
  heldBy(): ProcessIdentity | undefined {
    if (hasTaskLock(this.dir)) return taskLockHolder(this.dir);
    if (this.meta.status !== "running" || this.meta.pid === process.pid) return undefined;
    const named = { pid: this.meta.pid, start: this.meta.processStart ?? "", host: thisProcess.host };
    return processRunning(named) ? named : undefined;
  }

  /**
   * Makes this process the task's one writer until `release` or the process ends; throws
   * TaskInUseError (one line for the person) when another live process is. `create` takes it for
   * a new task; a host resuming a stored task takes it before anything else (resumeSession).
   */
  lock(): void {
    if (this.locked) return;
    const lockFile = path.join(this.dir, taskLockName);
    // This process may open a task again (an SDK restore, a page reopened), but not one it is running now.
    if (holdsTaskLock(this.dir) && this.meta.status === "running") throw new TaskInUseError(thisProcess, lockFile, this.meta.id);
    const named = hasTaskLock(this.dir) ? undefined : this.heldBy();
    if (named) throw new TaskInUseError(named, lockFile, this.meta.id);
    takeTaskLock(this.dir, this.meta.id);
    this.locked = true;
  }

  /** Whether this store object holds the task's lock. */
  private locked = false;

  /** Gives the task up (a host closing it); another process may then take it. */
  release(): void {
    if (!this.locked) return;
    this.locked = false;
    releaseTaskLock(this.dir);
  }

  /** Marks the task as run by this process again (resume); takes its lock if this process does not hold it yet. */
  claim(): void {
    this.lock();
    this.update({ pid: process.pid, ...(thisProcess.start ? { processStart: thisProcess.start } : {}), status: "running" });
  }

  /** Records a task started from this one (its hand-off, a sub-agent). */
  addChild(link: TaskLink): void {
    this.update({ children: [...(this.meta.children ?? []), link] });
  }

  /**
   * Keeps an "always allow for this task" rule with the task, on disk before the call it allowed
   * runs: a task killed right after the answer still has it when resumed.
   */
  addTaskRule(text: string): void {
    const kept = keptTaskRuleTexts(this.meta.taskRules);
    if (kept.includes(text)) return;
    this.update({ taskRules: [...kept, text] });
  }

  update(patch: Partial<TaskMetadata>): void {
    const before = this.meta;
    // A state the file already holds (a run's start on a task just created or claimed) is not written again.
    if (!this.unwritten && sameMetadata(before, { ...before, ...patch })) return;
    this.meta = { ...this.meta, ...patch, updatedAt: new Date().toISOString() };
    // Each step's counts (turns, usage, cost) reach the history index, a cache, at most every few seconds; a change of status, mode or title at once.
    const listed =
      before.status !== this.meta.status || before.mode !== this.meta.mode || before.title !== this.meta.title || before.model !== this.meta.model || before.pid !== this.meta.pid;
    this.writeMetadata({ index: listed || Date.now() - this.indexedAt >= indexEveryMs });
  }

  /** When this store last wrote its entry into the history index. */
  private indexedAt = 0;

  hasCheckpoint(): boolean {
    return this.meta.checkpoints.length > 0;
  }

  checkpoint(record: CheckpointRecord): void {
    // A checkpoint changes nothing the history index lists. It is written before this process does
    // anything else (the next turn of the event loop), together with the state write or the other
    // checkpoints of the same moment (a step's, then the task's end): one rename for them all.
    // Durable with the step's next state write (its one fsync), which carries the same list.
    this.meta = { ...this.meta, checkpoints: [...this.meta.checkpoints, record], updatedAt: new Date().toISOString() };
    this.unwritten = true;
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      if (!this.unwritten) return;
      try {
        this.writeMetadata({ index: false, durable: false });
      } catch {
        // Outside the journal's guard here: the next state write carries the list again, and a failure there stops the task with its reason.
      }
    });
  }

  /** metadata.json does not hold this.meta yet: checkpoints recorded (written on the next turn of the event loop at the latest), or a write that failed. */
  private unwritten = false;
  private flushScheduled = false;

  private writeMetadata(options: { index?: boolean; durable?: boolean } = {}): void {
    this.unwritten = true;
    writeFileAtomicSync(path.join(this.dir, "metadata.json"), `${JSON.stringify(this.meta, null, 2)}\n`, { durable: options.durable !== false });
    this.unwritten = false;
    if (options.index === false) return;
    updateHistoryIndex(this.home, this.meta);
    this.indexedAt = Date.now();
  }

  private append(file: string, line: unknown): void {
    appendWholeSync(path.join(this.dir, file), `${JSON.stringify(line)}\n`);
  }

  message(message: Message): void {
    this.append("conversation.jsonl", { message } satisfies Line);
  }

  callResult(call: ParsedCall, result: PendingResult["result"]): void {
    this.append("conversation.jsonl", { call_result: { call, result } } satisfies Line);
  }

  replaceMessages(messages: readonly Message[]): void {
    const lines = messages.map((message) => JSON.stringify({ message } satisfies Line)).join("\n");
    writeFileAtomicSync(path.join(this.dir, "conversation.jsonl"), lines ? `${lines}\n` : "");
  }

  event(event: AgentEvent): void {
    if (!skippedEvents.has(event.type)) this.append("events.jsonl", event);
  }

  state(state: TaskState): void {
    this.update(state);
  }

  loadConversation(): LoadedConversation {
    const file = path.join(this.dir, "conversation.jsonl");
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    const messages: Message[] = [];
    let pending: PendingResult[] = [];
    const warnings: string[] = [];
    text.split("\n").forEach((raw, index) => {
      if (raw.trim() === "") return;
      let line: Line;
      try {
        line = JSON.parse(raw) as Line;
      } catch {
        warnings.push(`${file} line ${index + 1} is damaged (probably cut by a crash) and was skipped.`);
        return;
      }
      if ("message" in line) {
        messages.push(line.message);
        pending = [];
      } else if ("call_result" in line) {
        pending.push(line.call_result);
      }
    });
    return { messages, pending, warnings };
  }

  loadEvents(): AgentEvent[] {
    const file = path.join(this.dir, "events.jsonl");
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .flatMap((raw) => {
        try {
          return raw.trim() ? [JSON.parse(raw) as AgentEvent] : [];
        } catch {
          return [];
        }
      });
  }

  /**
   * Removes the task's folder, and only that: it must be a real folder (not a link) directly under
   * CAIRN_HOME/tasks, checked on real paths just before the removal.
   */
  delete(): void {
    this.release();
    TaskStore.removeFolder(this.home, this.meta.id);
  }

  /**
   * Removes the folder of task `id` without reading its metadata (so a task whose metadata.json is
   * damaged can still be removed): a real folder directly under CAIRN_HOME/tasks, checked on real
   * paths just before the removal.
   */
  static removeFolder(home: string, id: string): void {
    if (!isValidTaskId(id)) throw new TaskNotFoundError(`"${id}" is not a task id (ids are letters, digits, '-' and '_'); see cairn history.`);
    const dir = path.join(home, "tasks", id);
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    if (!stat) return;
    const tasksDir = realpathSync.native(path.join(home, "tasks"));
    const real = realpathSync.native(dir);
    if (!stat.isDirectory() || path.dirname(real) !== tasksDir || path.basename(real) !== id) {
      throw new TaskNotFoundError(`${dir} is not a task folder Cairn made (a link, or outside ${tasksDir}); it was left in place. Remove it by hand if you mean to.`);
    }
    rmSync(real, { recursive: true, force: true });
  }
}
