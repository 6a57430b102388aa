import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { Message } from "../model/types.js";
import type { ParsedCall } from "../protocol/types.js";
import type { AgentEvent } from "../runtime/events.js";
import type { TaskJournal, TaskState } from "../runtime/journal.js";
import type { PendingResult } from "../runtime/resume.js";
import type { ToolResult } from "../tools/tool.js";
import { appendWholeSync, writeFileAtomicSync } from "./atomic-write.js";
import { updateHistoryIndex } from "./history.js";

export type CheckpointRecord = { hash: string; messageIndex: number; label: string; createdAt: string };

export type TaskMetadata = TaskState & {
  id: string;
  /** The first line of the task, for lists. */
  title: string;
  workspace: string;
  provider: string;
  model: string;
  protocol: "xml" | "native";
  createdAt: string;
  updatedAt: string;
  /** The process running the task; a "running" task whose process is gone was interrupted. */
  pid: number;
  checkpoints: CheckpointRecord[];
};

export type { PendingResult } from "../runtime/resume.js";

export type LoadedConversation = {
  messages: Message[];
  /** Tool results recorded after the last message: their message's results never got written. */
  pending: PendingResult[];
  /** Lines that could not be read (a write cut by a crash); the rest loaded. */
  warnings: string[];
};

type Line = { message: Message } | { call_result: PendingResult } | { reset: true };

/** Events worth keeping: everything but token-by-token deltas, which the complete messages repeat. */
const skippedEvents = new Set<AgentEvent["type"]>(["text_delta", "reasoning_delta", "tool_call_delta"]);

export class TaskNotFoundError extends Error {
  override name = "TaskNotFoundError";
}

/** Task storage as files: `tasks/<id>/` with metadata.json (atomic), conversation.jsonl and events.jsonl (append-only). */
export class TaskStore implements TaskJournal {
  readonly dir: string;
  private meta: TaskMetadata;

  private constructor(
    readonly home: string,
    meta: TaskMetadata,
  ) {
    this.meta = meta;
    this.dir = path.join(home, "tasks", meta.id);
  }

  static create(home: string, init: Pick<TaskMetadata, "workspace" | "provider" | "model" | "protocol" | "mode"> & { task: string; id?: string }): TaskStore {
    const now = new Date().toISOString();
    const id = init.id ?? `${now.slice(0, 10).replaceAll("-", "")}-${randomUUID().slice(0, 8)}`;
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
      checkpoints: [],
    };
    const store = new TaskStore(home, meta);
    mkdirSync(store.dir, { recursive: true });
    store.writeMetadata();
    return store;
  }

  /** Opens an existing task; a unique id prefix is enough. */
  static open(home: string, idOrPrefix: string): TaskStore {
    const tasksDir = path.join(home, "tasks");
    let id = idOrPrefix;
    if (!existsSync(path.join(tasksDir, id, "metadata.json"))) {
      const matches = existsSync(tasksDir) ? readdirSync(tasksDir).filter((name) => name.startsWith(idOrPrefix)) : [];
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
      meta = JSON.parse(readFileSync(file, "utf8")) as TaskMetadata;
    } catch (error) {
      throw new TaskNotFoundError(`The task file ${file} is damaged (${(error as Error).message}); the task cannot be opened. Other tasks are unaffected.`);
    }
    return new TaskStore(home, meta);
  }

  get id(): string {
    return this.meta.id;
  }

  metadata(): TaskMetadata {
    return structuredClone(this.meta);
  }

  /** Effective status: a task left "running" by a process that no longer exists was interrupted. */
  get interrupted(): boolean {
    return this.meta.status === "running" && !processAlive(this.meta.pid);
  }

  /** Marks the task as run by this process again (resume). */
  claim(): void {
    this.update({ pid: process.pid, status: "running" });
  }

  update(patch: Partial<TaskMetadata>): void {
    this.meta = { ...this.meta, ...patch, updatedAt: new Date().toISOString() };
    this.writeMetadata();
  }

  checkpoint(record: CheckpointRecord): void {
    this.update({ checkpoints: [...this.meta.checkpoints, record] });
  }

  private writeMetadata(): void {
    writeFileAtomicSync(path.join(this.dir, "metadata.json"), `${JSON.stringify(this.meta, null, 2)}\n`);
    updateHistoryIndex(this.home, this.meta);
  }

  private append(file: string, line: unknown): void {
    appendFileSync(path.join(this.dir, file), `${JSON.stringify(line)}\n`);
  }

  message(message: Message): void {
    this.append("conversation.jsonl", { message } satisfies Line);
  }

  callResult(call: ParsedCall, result: ToolResult): void {
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

  delete(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
