import path from "node:path";
import { z } from "zod";
import { ConfigFileError, readJsonConfig, schemaProblem } from "../disk/config-file.js";
// Worded with every configuration file's problems (disk/config-file.ts); still offered from here, where the settings' readers look for it.
export { describeIssue } from "../disk/config-file.js";
import { approvalCategories } from "../policy/approval-category.js";
import { protocolNames } from "../protocol/types.js";
import { parseApprovalList } from "../policy/approval.js";
import { commandPermissionsSchema, parseCommandPermissions } from "../policy/command/rules.js";
import { providerIds } from "../model/providers.js";
import { reasoningEfforts } from "../model/reasoning.js";
import type { ProviderId } from "../model/types.js";
import { isSandboxMode, sandboxModes, sandboxSettingsSchema } from "../sandbox/sandbox-settings.js";
import { lspSettingsSchema } from "../lsp/lsp-settings.js";

const pricingSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
});

export const compactionStrategies = ["auto", "truncate", "off"] as const;

/** How the calls of one reply run: reads side by side (the default), or every call after the one before it. */
export const toolExecutions = ["parallel", "sequential"] as const;
export type ToolExecution = (typeof toolExecutions)[number];

/** A value read from a flag's or an environment variable's text, or the one line that says what is wrong. */
export type FromText<T> = (text: string, source: string) => { ok: true; value: T } | { ok: false; error: string };

/**
 * One setting, described once: its schema in settings.json, and where a person can also set it
 * (a `cairn run` flag, an environment variable). The CLI's flags and help, the environment the
 * session reads and SessionOverrides are all derived from `settingOptions`.
 */
export type SettingOption<S extends z.ZodType = z.ZodType> = {
  schema: S;
  /** The flag's name without dashes, its argument as help shows it, and its help line(s). */
  flag?: { name: string; arg: string; help: string };
  env?: string;
  /** How the text of the flag or variable becomes this setting's value (default: the schema on the text). */
  fromText?: FromText<z.infer<S>>;
  /**
   * An object whose keys each come from the highest layer that sets them (--retries sets only
   * retry.maxRetries); otherwise a higher layer replaces the whole value.
   */
  merge?: boolean;
};

const option = <S extends z.ZodType>(o: SettingOption<S>): SettingOption<S> => o;

const oneOf =
  <T extends string>(values: readonly T[], words: string): FromText<T> =>
  (text, source) =>
    (values as readonly string[]).includes(text) ? { ok: true, value: text as T } : { ok: false, error: `${source} must be ${words}, got "${text}".` };

const count =
  (allowZero: boolean): FromText<number> =>
  (text, source) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < (allowZero ? 0 : 1)) return { ok: false, error: `${source} needs a whole number${allowZero ? "" : " above 0"}, got "${text}".` };
    return { ok: true, value: n };
  };

const amount =
  (what: string): FromText<number> =>
  (text, source) => {
    const n = Number(text);
    if (text.trim() === "" || !Number.isFinite(n) || n <= 0) return { ok: false, error: `${source} needs ${what} above 0, got "${text}".` };
    return { ok: true, value: n };
  };

const approvalNames = approvalCategories.join(", ");

export const settingOptions = {
  /** Hook commands (Claude Code's shape); the hooks loader reads and checks them. */
  hooks: option({ schema: z.unknown() }),
  provider: option({
    schema: z.enum(providerIds as [ProviderId, ...ProviderId[]]),
    flag: { name: "provider", arg: "<id>", help: providerIds.join(" | ") },
    env: "CAIRN_PROVIDER",
    fromText: (text, source) =>
      (providerIds as readonly string[]).includes(text)
        ? { ok: true, value: text as ProviderId }
        : { ok: false, error: `Unknown provider "${text}"${source.startsWith("-") ? "" : ` (from ${source})`}. Use one of: ${providerIds.join(", ")}.` },
  }),
  model: option({ schema: z.string().min(1), flag: { name: "model", arg: "<id>", help: "model id (default: the provider's default, or CAIRN_MODEL)" }, env: "CAIRN_MODEL" }),
  baseUrl: option({ schema: z.url(), flag: { name: "base-url", arg: "<url>", help: "API root of the provider (for openai-compatible endpoints)" }, env: "CAIRN_BASE_URL", fromText: (text) => ({ ok: true, value: text }) }),
  fallbackModel: option({ schema: z.string().min(1), flag: { name: "fallback-model", arg: "<id>", help: "model that takes over when the main one keeps failing" } }),
  protocol: option({
    schema: z.enum(protocolNames),
    flag: { name: "protocol", arg: "xml|native", help: "how tool calls travel (default: native; xml for ollama and lmstudio)" },
    fromText: oneOf(protocolNames, "xml or native"),
  }),
  autoApprove: option({
    schema: z.array(z.enum(approvalCategories)),
    flag: { name: "auto-approve", arg: "<list>", help: `comma list: ${approvalNames} (default: read)` },
    fromText: (text, source) => {
      const { categories, unknown } = parseApprovalList(text);
      if (unknown.length > 0) return { ok: false, error: `Unknown ${source} value "${unknown.join(",")}". Use: ${approvalNames}.` };
      return { ok: true, value: categories };
    },
  }),
  maxTurns: option({ schema: z.number().int().positive(), flag: { name: "max-turns", arg: "<n>", help: "stop after n model turns" }, fromText: count(false) }),
  maxBudgetUsd: option({
    schema: z.number().positive(),
    flag: { name: "max-budget-usd", arg: "<usd>", help: "stop before a request once the task has cost this much" },
    fromText: amount("an amount in dollars"),
  }),
  /** How many fresh tasks (new_task) a chain of hand-offs may add after its first task (default 3; 0: none). */
  maxHandoffs: option({
    schema: z.number().int().nonnegative(),
    flag: { name: "max-handoffs", arg: "<n>", help: "how many fresh tasks the model may hand over to in a row (new_task;\ndefault 3, 0: none)" },
    env: "CAIRN_MAX_HANDOFFS",
    fromText: count(true),
  }),
  /** {"allow": [...], "deny": [...], "allowRedirects": bool}; CAIRN_COMMAND_PERMISSIONS wins over it. */
  commandPermissions: option({
    schema: commandPermissionsSchema,
    env: "CAIRN_COMMAND_PERMISSIONS",
    fromText: (text, source) => {
      const parsed = parseCommandPermissions(text, source);
      return parsed.ok ? { ok: true, value: parsed.permissions } : { ok: false, error: `${parsed.error} Fix ${source} or unset it.` };
    },
  }),
  /** Rules files switched off (absolute paths, as the settings view and cairn rules show them): found, listed, never put in the prompt. */
  rulesOff: option({ schema: z.array(z.string().min(1)) }),
  /** Glob patterns of commands that always need approval, besides the built-in list. */
  approvalRequiredCommands: option({ schema: z.array(z.string().min(1)) }),
  /** browser_action: the page size in CSS pixels (default 900×600) and the Chromium to run. */
  browser: option({
    schema: z
      .strictObject({
        viewport: z.strictObject({ width: z.number().int().min(200).max(4000), height: z.number().int().min(200).max(4000) }),
        chromiumPath: z.string().min(1),
      })
      .partial(),
    merge: true,
  }),
  /** Checkpoint the workspace after every step (default true). */
  checkpoints: option({ schema: z.boolean() }),
  /** Above this many files, a workspace's first checkpoint is made before the first change rather than at the start (default 200,000). */
  checkpointsLazyAboveFiles: option({ schema: z.number().int().nonnegative() }),
  /** Command whose output @problems shows (e.g. "npx tsc --noEmit -p ."). */
  problemsCommand: option({ schema: z.string().min(1) }),
  /** Language servers that check every edit: false turns them off; {"servers": {name: false | {command, extensions, rootMarkers, initializationOptions}}, "warnings": bool}. */
  lsp: option({ schema: lspSettingsSchema }),
  compaction: option({
    schema: z.enum(compactionStrategies),
    flag: { name: "compaction", arg: "<how>", help: "auto (summarise when the window fills) | truncate | off" },
    fromText: oneOf(compactionStrategies, "auto, truncate or off"),
  }),
  /** The OS sandbox of commands: {"mode", "network", "hiddenPaths", "writablePaths", "passEnv"}; --sandbox and CAIRN_SANDBOX set mode. */
  sandbox: option({
    schema: sandboxSettingsSchema,
    flag: {
      name: "sandbox",
      arg: "<mode>",
      help: "OS sandbox for commands: workspace-write (default) | read-only |\noff | required (workspace-write, or exit 2 if it cannot start);\nsandboxed commands run without variables named like secrets (KEY,\nSECRET, TOKEN, PASSWORD, PASSWD, CREDENTIAL, CAIRN_*_URL): settings\n\"sandbox\": {\"passEnv\": [\"NAME\", \"PREFIX_*\"]} keeps them",
    },
    env: "CAIRN_SANDBOX",
    fromText: (text, source) =>
      isSandboxMode(text) ? { ok: true, value: { mode: text } } : { ok: false, error: `${source} must be one of ${sandboxModes.join(", ")}, got "${text}".` },
    merge: true,
  }),
  /** A cheaper model (same provider) that writes compaction summaries. */
  compactionModel: option({ schema: z.string().min(1) }),
  maxMistakes: option({ schema: z.number().int().positive() }),
  /** Longest wait in seconds for a model response's first byte and between two chunks (default 120); --request-timeout wins. */
  requestTimeout: option({
    schema: z.number().positive(),
    flag: { name: "request-timeout", arg: "<s>", help: "longest wait for a model response to start or go on (default 120)" },
    fromText: amount("a number of seconds"),
  }),
  /** Extended thinking: the most tokens the model may think before it answers (Anthropic; OpenAI-style APIs get the nearest effort). */
  thinking: option({
    schema: z.number().int().positive(),
    flag: { name: "thinking", arg: "<tokens>", help: "let the model think first, up to this many tokens (reasoning streams\nand is counted; OpenAI-style APIs get the nearest --effort)" },
    fromText: count(false),
  }),
  /** Reasoning effort (OpenAI; Anthropic gets a thinking budget to match). */
  effort: option({
    schema: z.enum(reasoningEfforts),
    flag: { name: "effort", arg: "low|medium|high", help: "how hard the model reasons (OpenAI reasoning effort; Anthropic: a\nthinking budget of 2k, 8k or 24k tokens)" },
    fromText: oneOf(reasoningEfforts, "low, medium or high"),
  }),
  /** The focus chain: task_progress on every tool (default on), and a reminder after this many turns without an update (default 6). */
  focusChain: option({ schema: z.strictObject({ enabled: z.boolean(), remindEveryTurns: z.number().int().positive() }).partial(), merge: true }),
  retry: option({
    schema: z
      .strictObject({
        maxRetries: z.number().int().nonnegative(),
        baseDelayMs: z.number().nonnegative(),
        maxDelayMs: z.number().nonnegative(),
      })
      .partial(),
    flag: { name: "retries", arg: "<n>", help: "retries of a failed model request (default 4)" },
    fromText: (text, source) => {
      const n = count(true)(text, source);
      return n.ok ? { ok: true, value: { maxRetries: n.value } } : n;
    },
    merge: true,
  }),
  /** parallel (default): the read-only calls of one reply run side by side, the rest in the reply's order; sequential: one call after another. */
  toolExecution: option({ schema: z.enum(toolExecutions), env: "CAIRN_TOOL_EXECUTION", fromText: oneOf(toolExecutions, "parallel or sequential") }),
  /**
   * What a model takes, by its id, over the built-in list and what its endpoint says
   * (model/capabilities.ts); the workspace's entry for a model replaces the person's.
   */
  models: option({
    schema: z.record(
      z.string(),
      z
        .strictObject({
          images: z.boolean(),
          contextWindow: z.number().int().positive(),
          maxOutput: z.number().int().positive(),
          /** The older name of maxOutput. */
          maxOutputTokens: z.number().int().positive(),
          nativeTools: z.boolean(),
          reasoning: z.union([z.boolean(), z.enum(reasoningEfforts)]),
          pricing: pricingSchema,
        })
        .partial(),
    ),
    merge: true,
  }),
};

export type SettingKey = keyof typeof settingOptions;

type SettingsShape = { [K in SettingKey]: z.ZodOptional<(typeof settingOptions)[K]["schema"]> };

export const settingsSchema = z.strictObject(
  Object.fromEntries(Object.entries(settingOptions).map(([key, o]) => [key, o.schema.optional()])) as SettingsShape,
);

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
  if (!parsed.success) throw new SettingsError(schemaProblem(file, parsed.error, settingsSchema));
  return parsed.data;
}
