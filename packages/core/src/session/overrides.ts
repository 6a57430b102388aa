import { z } from "zod";
import type { Mode } from "../policy/mode.js";
import { describeIssue, settingOptions, type SettingKey, type Settings } from "../storage/settings.js";
import { SessionError } from "./session-error.js";

export type Env = Record<string, string | undefined>;

/**
 * What a host sets for one session, above every other layer: the settings' own keys (model,
 * sandbox: {mode}, retry: {maxRetries}, ...) plus the two that only a session has.
 */
export type SessionOverrides = Partial<Omit<Settings, "hooks">> & {
  /** Undefined: a new task acts, a stored one keeps its mode. */
  mode?: Mode;
  /** Approve everything. */
  yolo?: boolean;
};

/** A setting of the table read from text: the flag's value (source "--model") or a variable's (source "CAIRN_MODEL"). */
export function settingFromText<K extends SettingKey>(key: K, text: string, source: string): Settings[K] {
  const option = settingOptions[key] as { schema: z.ZodType; fromText?: (text: string, source: string) => { ok: true; value: unknown } | { ok: false; error: string } };
  if (option.fromText) {
    const read = option.fromText(text, source);
    if (!read.ok) throw new SessionError(read.error);
    return read.value as Settings[K];
  }
  const parsed = option.schema.safeParse(text);
  if (!parsed.success) throw new SessionError(`${source}: ${describeIssue(parsed.error.issues[0]!, option.schema).replace(/^the top level /, "")}.`);
  return parsed.data as Settings[K];
}

/** The settings the environment sets (CAIRN_PROVIDER, CAIRN_MODEL, ...); a blank variable is unset. */
export function settingsFromEnv(env: Env): Partial<Settings> {
  const settings: Record<string, unknown> = {};
  for (const [key, option] of Object.entries(settingOptions) as Array<[SettingKey, { env?: string }]>) {
    const text = option.env ? env[option.env]?.trim() : undefined;
    if (!text) continue;
    settings[key] = settingFromText(key, text, option.env!);
  }
  return settings as Partial<Settings>;
}

/**
 * Layers of settings, lowest first, as one: each key comes from the highest layer that sets it;
 * for the settings marked `merge` (retry, sandbox, browser) each of their own keys does.
 */
export function mergeSettings(...layers: ReadonlyArray<Partial<Settings>>): Settings {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      const option = settingOptions[key as SettingKey] as { merge?: boolean } | undefined;
      const below = merged[key];
      merged[key] = option?.merge && isObject(below) && isObject(value) ? { ...below, ...value } : value;
    }
  }
  return merged as Settings;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
