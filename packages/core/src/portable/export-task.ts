import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { TaskStore, type TaskMetadata } from "../storage/task-store.js";
import { SecretRedactor } from "./secret-redaction.js";
import { taskFileFormat, taskFileVersion, type ExportedTask, type TaskFile } from "./task-file.js";

export type TaskExport = {
  file: TaskFile;
  /** Lines of a stored conversation that could not be read (a write cut by a crash): left out, as a resume would. */
  warnings: string[];
};

/**
 * The stored task `idOrPrefix` (and its sub-agents' tasks) as one exported-task document, every
 * string in it redacted (`env`: the exporting process's environment, whose secret-named values are
 * looked for too). The process that ran it and its checkpoints stay behind: a pid means nothing on
 * another machine, and checkpoints name commits of this machine's shadow repository.
 */
export function exportTask(o: { home: string; id: string; env?: Record<string, string | undefined>; exportedBy: string }): TaskExport {
  const redactor = new SecretRedactor(o.env ?? {});
  const warnings: string[] = [];
  const root = TaskStore.open(o.home, o.id);
  const tasks: ExportedTask[] = [];
  const seen = new Set<string>();
  const queue = [root];
  while (queue.length > 0) {
    const store = queue.shift()!;
    if (seen.has(store.id)) continue;
    seen.add(store.id);
    const { task, lineWarnings } = exportOne(store);
    warnings.push(...lineWarnings);
    tasks.push(redactor.redactJson(task));
    for (const child of store.metadata().children ?? []) {
      if (child.relation !== "subagent") continue;
      try {
        queue.push(TaskStore.open(o.home, child.id));
      } catch (error) {
        warnings.push(`sub-agent task ${child.id} of ${store.id} was left out: ${(error as Error).message.split("\n")[0]}`);
      }
    }
  }
  return {
    file: {
      format: taskFileFormat,
      version: taskFileVersion,
      exportedAt: new Date().toISOString(),
      exportedBy: o.exportedBy,
      redactions: { count: redactor.total, kinds: Object.fromEntries([...redactor.counts].sort(([a], [b]) => a.localeCompare(b))) },
      tasks,
    },
    warnings,
  };
}

function exportOne(store: TaskStore): { task: ExportedTask; lineWarnings: string[] } {
  const { pid: _pid, processStart: _start, checkpoints: _checkpoints, ...kept } = store.metadata();
  const metadata = { ...kept, pid: 0, checkpoints: [] } satisfies TaskMetadata;
  const { lines, lineWarnings } = conversationLines(store);
  return { task: { metadata, conversation: lines, events: wholeOutput(store.loadEvents()) as ExportedTask["events"] }, lineWarnings };
}

/**
 * A call's live output as one event: the journal keeps it in the pieces it arrived in, and a
 * secret printed across two of them would pass the redaction in halves. Each call's pieces are
 * joined into its last piece's place, which is still before the call's end.
 */
function wholeOutput(events: ReadonlyArray<{ type: string }>): Array<{ type: string }> {
  const output = (event: { type: string }): event is { type: "tool_output"; tool_use_id: string; text: string } => event.type === "tool_output";
  const texts = new Map<string, string>();
  const last = new Map<string, number>();
  events.forEach((event, index) => {
    if (!output(event)) return;
    texts.set(event.tool_use_id, `${texts.get(event.tool_use_id) ?? ""}${event.text}`);
    last.set(event.tool_use_id, index);
  });
  return events.flatMap((event, index) => {
    if (!output(event)) return [event];
    return last.get(event.tool_use_id) === index ? [{ ...event, text: texts.get(event.tool_use_id)! }] : [];
  });
}

/** conversation.jsonl as stored, line by line (its resets and results written ahead of their message included). */
function conversationLines(store: TaskStore): { lines: ExportedTask["conversation"]; lineWarnings: string[] } {
  const file = path.join(store.dir, "conversation.jsonl");
  const lines: ExportedTask["conversation"] = [];
  const lineWarnings: string[] = [];
  if (!existsSync(file)) return { lines, lineWarnings };
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((raw, index) => {
      if (raw.trim() === "") return;
      try {
        lines.push(JSON.parse(raw) as ExportedTask["conversation"][number]);
      } catch {
        lineWarnings.push(`${file} line ${index + 1} is damaged (probably cut by a crash) and was left out.`);
      }
    });
  return { lines, lineWarnings };
}
