import { z } from "zod";
import { taskMetadataSchema } from "../storage/task-metadata.js";

/**
 * The exported-task file (README "Exporting and importing a task"): one JSON document, so that a
 * file cut short does not parse and is refused whole, rather than imported with the end of its
 * conversation missing, as a JSON-lines file cut at a line boundary would be. Any JSON reader opens
 * it; a conversation is megabytes at most, so nothing is lost by not streaming it.
 */
export const taskFileFormat = "cairn-task";

/** Raised when the layout of the file changes in a way an older reader would misread. */
export const taskFileVersion = 1;

/** A line of conversation.jsonl, kept as stored: a message, a call's result written before its message, a reset. */
const conversationLineSchema = z.union([
  z.looseObject({ message: z.looseObject({ role: z.string() }) }),
  z.looseObject({ call_result: z.looseObject({}) }),
  z.looseObject({ reset: z.literal(true) }),
]);

/** One task: its metadata.json (without the process that ran it), conversation.jsonl and events.jsonl. */
export const exportedTaskSchema = z.object({
  metadata: taskMetadataSchema,
  conversation: z.array(conversationLineSchema),
  events: z.array(z.looseObject({ type: z.string() })),
});

export const taskFileSchema = z.object({
  format: z.literal(taskFileFormat),
  version: z.literal(taskFileVersion),
  exportedAt: z.string(),
  exportedBy: z.string(),
  /** What was taken out: how many secrets, by kind (`anthropic-key`, `env:NAME`, ...); never the values. */
  redactions: z.object({ count: z.number().int().nonnegative(), kinds: z.record(z.string(), z.number().int().nonnegative()) }),
  /** The task exported first, then its sub-agents' tasks (which its conversation's results came from). */
  tasks: z.array(exportedTaskSchema).min(1),
});

export type ExportedTask = z.infer<typeof exportedTaskSchema>;
export type TaskFile = z.infer<typeof taskFileSchema>;

/** A file `cairn import` cannot take; the message is one line saying which file, what is wrong and what to do. */
export class TaskFileError extends Error {
  override name = "TaskFileError";
}

/** Reads an exported task from its text; throws TaskFileError for anything but a whole file of a version this Cairn reads. */
export function parseTaskFile(text: string, file: string): TaskFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TaskFileError(`${file} is not a whole exported task (cut short or damaged: ${(error as Error).message.split("\n")[0]}); export the task again.`);
  }
  const head = z.looseObject({ format: z.string(), version: z.unknown() }).safeParse(json);
  if (!head.success || head.data.format !== taskFileFormat) {
    throw new TaskFileError(`${file} is not an exported Cairn task (no "format": "${taskFileFormat}"); export one with cairn export <id>.`);
  }
  const version = head.data.version;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    throw new TaskFileError(`${file} has no valid format version (${JSON.stringify(version)}); it was edited or damaged: export the task again.`);
  }
  if (version > taskFileVersion) {
    throw new TaskFileError(`${file} was written by a newer Cairn (task format version ${version}; this Cairn reads version ${taskFileVersion}): update Cairn to import it.`);
  }
  const parsed = taskFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `"${issue.path.join(".")}"` : "the top level";
    throw new TaskFileError(`${file} is damaged (${where}: ${issue.message.toLowerCase()}); export the task again.`);
  }
  return parsed.data;
}
