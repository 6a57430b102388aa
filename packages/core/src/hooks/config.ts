import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { realOrResolved } from "../disk/real-path.js";
import type { UntrustedConfig } from "../trust/untrusted.js";
import { configDigest, type ConfigDigest } from "../trust/digest.js";
import { isTrusted, trustRecord, workspaceKey } from "../trust/trust-store.js";
import { hookEventNames, isHookEventName, type HookEventName } from "./events.js";

/** One command of the settings, ready to run. */
export type ConfiguredHook = {
  event: HookEventName;
  /** As written ("" when absent). */
  matcher: string;
  /** Whether the hook applies; `target` is undefined for events that ignore matchers. */
  matches(target: string | undefined): boolean;
  command: string;
  /** Per-hook `timeout` (seconds in the file), else the default. */
  timeoutMs: number | undefined;
  /** The settings file it came from, for messages. */
  source: string;
  /**
   * From the workspace's .cairn/settings.json rather than the person's CAIRN_HOME: it runs in the
   * task's command sandbox when there is one, since the files it sources or runs may be the model's.
   */
  fromWorkspace?: true;
  /**
   * For the workspace's hooks: whether the file and the files its commands name are still what the
   * person trusted. Checked before each run, so a script edited mid-task (by a pull, or by the
   * model) does not run unreviewed.
   */
  stillTrusted?: () => boolean;
};

export type HookConfig = {
  hooks: ConfiguredHook[];
  /** One line per problem, naming the file and what to fix. */
  warnings: string[];
  /** Settings files that contributed hooks, global first. */
  sources: string[];
  /** The workspace's settings file when it has hooks the person has not trusted (they did not load). */
  untrusted: UntrustedConfig[];
};

const groupSchema = z.object({
  matcher: z.string().optional(),
  hooks: z.array(z.looseObject({ type: z.string() })),
});

const fileSchema = z.looseObject({
  hooks: z.record(z.string(), z.array(groupSchema)).optional(),
});

const commandHookSchema = z.looseObject({
  type: z.literal("command"),
  command: z.string().trim().min(1, "must be a command to run"),
  timeout: z.number().positive("must be a number of seconds above 0").optional(),
});

/**
 * The settings files that may hold hooks, in the order their hooks run: CAIRN_HOME/settings.json,
 * then the workspace's .cairn/settings.json.
 */
export function hookSettingsFiles(options: { home: string; cwd: string }): string[] {
  return [path.join(options.home, "settings.json"), projectSettingsFile(options.cwd)];
}

/** The workspace's settings file, under its real path (the name trust records use). */
export function projectSettingsFile(cwd: string): string {
  return path.join(workspaceKey(cwd), ".cairn", "settings.json");
}

/**
 * Reads the hooks of every settings file. Never throws: a file that cannot be read or is malformed
 * gives a warning and contributes nothing; the other files still count. A hook of a type Cairn does
 * not run (Claude Code's "prompt", "http", ...) and an event Cairn does not have are skipped with a
 * warning, the rest of that file kept.
 *
 * The workspace's file is the repository's, not the person's: its hooks load only when the person
 * trusted that exact content (`cairn trust`); otherwise they are listed in `untrusted`. When
 * CAIRN_HOME is the workspace's .cairn folder, that file is the person's own and always loads.
 */
export function loadHookConfig(options: { home: string; cwd: string }): HookConfig {
  const config: HookConfig = { hooks: [], warnings: [], sources: [], untrusted: [] };
  const seen = new Set<string>();
  for (const [index, file] of hookSettingsFiles(options).entries()) {
    const isProject = index === 1;
    const identity = realOrResolved(file);
    if (seen.has(identity)) continue; // CAIRN_HOME may be the workspace's .cairn folder
    seen.add(identity);
    const text = readSettingsText(file);
    if (typeof text !== "string") {
      config.warnings.push(...text.warnings);
      continue;
    }
    const read = parseHooks(file, text);
    if (isProject && read.hooks.length > 0 && !isTrusted(options.home, options.cwd, file, hooksDigest(options.cwd, text, read.hooks).digest)) {
      config.untrusted.push({ file, workspace: workspaceKey(options.cwd), what: "hooks", changed: trustRecord(options.home, options.cwd, file) !== undefined });
      continue;
    }
    config.warnings.push(...read.warnings);
    if (read.hooks.length === 0) continue;
    if (isProject) {
      const stillTrusted = () => {
        const now = readSettingsText(file);
        return typeof now === "string" && now === text && isTrusted(options.home, options.cwd, file, hooksDigest(options.cwd, now, read.hooks).digest);
      };
      for (const hook of read.hooks) {
        hook.stillTrusted = stillTrusted;
        hook.fromWorkspace = true;
      }
    }
    config.hooks.push(...read.hooks);
    config.sources.push(file);
  }
  return config;
}

/** What trust in a settings file is bound to: its text and the workspace files its hook commands name. */
export function hooksDigest(cwd: string, text: string, hooks: readonly ConfiguredHook[]): ConfigDigest {
  return configDigest(cwd, text, hooks.map((h) => h.command));
}

/** The hooks of one settings file; on any structural problem, none, and a warning that says why. */
export function readHooksFile(file: string): { hooks: ConfiguredHook[]; warnings: string[] } {
  const text = readSettingsText(file);
  return typeof text === "string" ? parseHooks(file, text) : text;
}

/** The file's text; a missing file is empty, an unreadable one a warning. */
function readSettingsText(file: string): string | { hooks: []; warnings: string[] } {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    return { hooks: [], warnings: [`${file}: cannot be read (${(error as Error).message}); its hooks are ignored until the file is fixed.`] };
  }
}

/** The hooks in a settings file's text (`file` names it in warnings). */
export function parseHooks(file: string, text: string): { hooks: ConfiguredHook[]; warnings: string[] } {
  const ignored = (problem: string) => ({ hooks: [], warnings: [`${file}: ${problem}; its hooks are ignored until the file is fixed.`] });
  if (text.trim() === "") return { hooks: [], warnings: [] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return ignored(`is not valid JSON (${(error as Error).message})`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) return ignored(describeIssue(parsed.error.issues[0], []));
  const hooks: ConfiguredHook[] = [];
  const warnings: string[] = [];
  for (const [event, groups] of Object.entries(parsed.data.hooks ?? {})) {
    if (!isHookEventName(event)) {
      warnings.push(`${file}: hooks.${event} is not an event Cairn has (${hookEventNames.join(", ")}); those hooks are skipped.`);
      continue;
    }
    for (const [g, group] of groups.entries()) {
      const matcher = group.matcher ?? "";
      const matches = compileMatcher(matcher);
      if (matches instanceof Error) return ignored(`hooks.${event}[${g}].matcher ${JSON.stringify(matcher)} is not a valid regular expression (${matches.message})`);
      for (const [h, entry] of group.hooks.entries()) {
        const where = `hooks.${event}[${g}].hooks[${h}]`;
        if (entry.type !== "command") {
          warnings.push(`${file}: ${where} has type "${entry.type}"; Cairn runs only "command" hooks, so it is skipped.`);
          continue;
        }
        const hook = commandHookSchema.safeParse(entry);
        if (!hook.success) return ignored(describeIssue(hook.error.issues[0], ["hooks", event, g, "hooks", h]));
        const { command, timeout } = hook.data;
        hooks.push({ event, matcher, matches, command, timeoutMs: timeout === undefined ? undefined : timeout * 1000, source: file });
      }
    }
  }
  return { hooks, warnings };
}

/**
 * Claude Code's matcher rules: empty, absent or "*" matches everything; a plain name, or names
 * joined by "|", must equal the target; anything else is a regular expression tested against it
 * (unanchored, as Claude Code does: "mcp__github__.*"). Returns the Error of an invalid expression.
 */
export function compileMatcher(matcher: string): ((target: string | undefined) => boolean) | Error {
  const trimmed = matcher.trim();
  if (trimmed === "" || trimmed === "*") return () => true;
  if (/^[\w|-]+$/.test(trimmed)) {
    const names = new Set(trimmed.split("|").filter((n) => n !== ""));
    return (target) => target === undefined || names.has(target);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(trimmed);
  } catch (error) {
    return error as Error;
  }
  return (target) => target === undefined || regex.test(target);
}

function describeIssue(issue: z.core.$ZodIssue | undefined, prefix: PropertyKey[]): string {
  if (!issue) return "is not in the expected shape";
  const parts = [...prefix, ...issue.path].map(String);
  const where = parts.length > 0 ? parts.join(".") : "(top level)";
  return `"${where}" ${issue.message.toLowerCase()}`;
}
