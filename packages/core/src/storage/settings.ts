import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { approvalCategories } from "../policy/approval.js";
import { commandPermissionsSchema } from "../policy/command/rules.js";
import { providerIds } from "../model/providers.js";
import type { ApprovalCategory } from "../runtime/events.js";

const pricingSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
});

export const settingsSchema = z.looseObject({
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
    .object({
      viewport: z.object({ width: z.number().int().min(200).max(4000), height: z.number().int().min(200).max(4000) }),
      chromiumPath: z.string().min(1),
    })
    .partial()
    .optional(),
  /** Checkpoint the workspace after every step (default true). */
  checkpoints: z.boolean().optional(),
  /** Command whose output @problems shows (e.g. "npx tsc --noEmit -p ."). */
  problemsCommand: z.string().min(1).optional(),
  compaction: z.enum(["auto", "truncate", "off"]).optional(),
  /** A cheaper model (same provider) that writes compaction summaries. */
  compactionModel: z.string().min(1).optional(),
  maxMistakes: z.number().int().positive().optional(),
  retry: z
    .object({
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
      z.object({ contextWindow: z.number().int().positive(), maxOutputTokens: z.number().int().positive(), pricing: pricingSchema }).partial(),
    )
    .optional(),
});

export type Settings = z.infer<typeof settingsSchema>;

/** Where Cairn keeps its data: CAIRN_HOME, else ~/.cairn. */
export function cairnHome(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env.CAIRN_HOME?.trim();
  return fromEnv ? path.resolve(fromEnv) : path.join(os.homedir(), ".cairn");
}

/** A settings file a person must fix; the message says which file and what is wrong, on one line. */
export class SettingsError extends Error {
  override name = "SettingsError";
}

/** Reads CAIRN_HOME/settings.json. A missing file is empty settings; a broken one is a SettingsError. */
export function loadSettings(home: string): Settings {
  const file = path.join(home, "settings.json");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new SettingsError(`Cannot read ${file}: ${(error as Error).message}.`);
  }
  if (text.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`${file} is not valid JSON (${(error as Error).message}). Fix the file or move it aside.`);
  }
  const parsed = settingsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? issue.path.join(".") : "(top level)";
    throw new SettingsError(`${file}: "${where}" ${issue.message.toLowerCase()}. Fix the file or move it aside.`);
  }
  return parsed.data;
}
