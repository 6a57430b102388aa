import path from "node:path";
import { z } from "zod";
import { ConfigFileError, readJsonConfig, unknownKeyProblem } from "./config-file.js";
import { approvalCategories } from "../policy/approval.js";
import { commandPermissionsSchema } from "../policy/command/rules.js";
import { providerIds } from "../model/providers.js";
import { sandboxSettingsSchema } from "../sandbox/sandbox-settings.js";
import type { ApprovalCategory } from "../runtime/events.js";

const pricingSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
});

export const settingsSchema = z.strictObject({
  /** Hook commands (Claude Code's shape); the hooks loader reads and checks them. */
  hooks: z.unknown().optional(),
  provider: z.enum(providerIds as [string, ...string[]]).optional(),
  model: z.string().min(1).optional(),
  baseUrl: z.url().optional(),
  fallbackModel: z.string().min(1).optional(),
  protocol: z.enum(["xml", "native"]).optional(),
  autoApprove: z.array(z.enum(approvalCategories as [ApprovalCategory, ...ApprovalCategory[]])).optional(),
  maxTurns: z.number().int().positive().optional(),
  maxBudgetUsd: z.number().positive().optional(),
  /** {"allow": [...], "deny": [...], "allowRedirects": bool}; CAIRN_COMMAND_PERMISSIONS wins over it. */
  commandPermissions: commandPermissionsSchema.optional(),
  /** Glob patterns of commands that always need approval, besides the built-in list. */
  approvalRequiredCommands: z.array(z.string().min(1)).optional(),
  /** browser_action: the page size in CSS pixels (default 900×600) and the Chromium to run. */
  browser: z
    .strictObject({
      viewport: z.strictObject({ width: z.number().int().min(200).max(4000), height: z.number().int().min(200).max(4000) }),
      chromiumPath: z.string().min(1),
    })
    .partial()
    .optional(),
  /** Checkpoint the workspace after every step (default true). */
  checkpoints: z.boolean().optional(),
  /** Above this many files, a workspace's first checkpoint is made before the first change rather than at the start (default 200,000). */
  checkpointsLazyAboveFiles: z.number().int().nonnegative().optional(),
  /** Command whose output @problems shows (e.g. "npx tsc --noEmit -p ."). */
  problemsCommand: z.string().min(1).optional(),
  compaction: z.enum(["auto", "truncate", "off"]).optional(),
  /** The OS sandbox of commands: {"mode", "network", "hiddenPaths", "writablePaths"}; --sandbox and CAIRN_SANDBOX win over mode. */
  sandbox: sandboxSettingsSchema.optional(),
  /** A cheaper model (same provider) that writes compaction summaries. */
  compactionModel: z.string().min(1).optional(),
  maxMistakes: z.number().int().positive().optional(),
  /** Longest wait in seconds for a model response's first byte and between two chunks (default 120); --request-timeout wins. */
  requestTimeout: z.number().positive().optional(),
  retry: z
    .strictObject({
      maxRetries: z.number().int().nonnegative(),
      baseDelayMs: z.number().nonnegative(),
      maxDelayMs: z.number().nonnegative(),
    })
    .partial()
    .optional(),
  /** Per-model overrides: context window, output limit, price. */
  models: z
    .record(
      z.string(),
      z.strictObject({ contextWindow: z.number().int().positive(), maxOutputTokens: z.number().int().positive(), pricing: pricingSchema }).partial(),
    )
    .optional(),
});

export type Settings = z.infer<typeof settingsSchema>;

export { cairnHome } from "./cairn-home.js";

/** A settings file a person must fix; the message says which file and what is wrong, on one line. */
export class SettingsError extends Error {
  override name = "SettingsError";
}

/** Reads CAIRN_HOME/settings.json. A missing file is empty settings; a broken one is a SettingsError. */
export function loadSettings(home: string): Settings {
  const file = path.join(home, "settings.json");
  let json: unknown;
  try {
    json = readJsonConfig(file);
  } catch (error) {
    if (error instanceof ConfigFileError) throw new SettingsError(error.message);
    throw error;
  }
  if (json === undefined) return {};
  const parsed = settingsSchema.safeParse(json);
  if (!parsed.success) throw new SettingsError(`${file}: ${describeIssue(parsed.error.issues[0]!, settingsSchema)}. Fix the file or move it aside.`);
  return parsed.data;
}

/**
 * One schema problem in words: where it is and what is wrong; an unknown key names the nearest
 * known one, since a misspelt key (commandPermisions) would otherwise switch a setting off unseen.
 */
export function describeIssue(issue: z.core.$ZodIssue, schema: z.ZodType): string {
  const where = issue.path.length > 0 ? `"${issue.path.join(".")}"` : "the top level";
  if (issue.code === "unrecognized_keys") {
    const known = knownKeysAt(schema, issue.path);
    const key = issue.keys[0]!;
    const at = issue.path.length > 0 ? ` in ${where}` : "";
    return `${unknownKeyProblem(key, known)}${at}; the keys that can be set here are ${known.join(", ")}`;
  }
  return `${where} ${issue.message.toLowerCase()}`;
}

/** The keys an object schema accepts at `path` (record keys and array indexes pass through). */
function knownKeysAt(schema: z.ZodType, at: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const segment of at) {
    if (current instanceof z.ZodObject) current = unwrap(current.shape[String(segment)] as z.ZodType);
    else if (current instanceof z.ZodRecord) current = unwrap(current.valueType as z.ZodType);
    else if (current instanceof z.ZodArray) current = unwrap(current.element as z.ZodType);
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault) current = current.unwrap() as z.ZodType;
  return current;
}
