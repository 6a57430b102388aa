import { readFileSync } from "node:fs";
import { z } from "zod";
import type { TaskMetadata } from "./task-store.js";

const usageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_input_tokens: z.number(),
  cache_creation_input_tokens: z.number(),
});

const linkSchema = z.object({ id: z.string().min(1), relation: z.enum(["handoff", "subagent"]) });

const checkpointSchema = z.object({ hash: z.string(), messageIndex: z.number().int(), label: z.string(), createdAt: z.string() });

/** What metadata.json must hold for a task to be listed, shown or resumed; extra keys are kept. */
export const taskMetadataSchema = z.looseObject({
  id: z.string().min(1),
  title: z.string(),
  workspace: z.string().min(1),
  provider: z.string().min(1),
  model: z.string().min(1),
  protocol: z.enum(["xml", "native"]),
  mode: z.enum(["act", "plan"]),
  status: z.enum(["running", "completed", "needs_input", "failed", "aborted"]),
  turns: z.number().int().nonnegative(),
  usage: usageSchema,
  totalCostUsd: z.number().nullable(),
  result: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  pid: z.number().int(),
  checkpoints: z.array(checkpointSchema),
  parent: linkSchema.optional(),
  children: z.array(linkSchema).optional(),
});

/** The fields a history entry needs, checked the same way (the index is a cache of them). */
export const historyEntrySchema = taskMetadataSchema.pick({
  id: true,
  title: true,
  workspace: true,
  provider: true,
  model: true,
  mode: true,
  status: true,
  createdAt: true,
  updatedAt: true,
  turns: true,
  totalCostUsd: true,
  pid: true,
  parent: true,
});

/** A metadata.json that cannot be used; the message says which file and what is wrong, on one line. */
export class DamagedMetadataError extends Error {
  override name = "DamagedMetadataError";
}

/** Reads and checks one task's metadata.json. */
export function readTaskMetadata(file: string): TaskMetadata {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new DamagedMetadataError(`${file} is damaged (${(error as Error).message.split("\n")[0]})`);
  }
  const parsed = taskMetadataSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `"${issue.path.join(".")}"` : "the top level";
    throw new DamagedMetadataError(`${file} is damaged (${where}: ${issue.message.toLowerCase()})`);
  }
  return parsed.data as TaskMetadata;
}
