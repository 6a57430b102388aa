import { readFileSync } from "node:fs";
import path from "node:path";
import { hooksDigest, parseHooks, projectSettingsFile } from "../hooks/config.js";
import { ConfigFileError, parseJsonConfig, schemaProblem } from "../disk/config-file.js";
import { realOrResolved } from "../disk/real-path.js";
import { settingsSchema, type Settings } from "../storage/settings.js";
import { isTrusted, trustRecord, workspaceKey } from "../trust/trust-store.js";
import { untrustedNotice } from "../trust/untrusted.js";
import { SessionError } from "./session-error.js";

/**
 * The workspace's `.cairn/settings.json`, besides its hooks. It comes with the repository, so a
 * clone could otherwise grant itself commands, a looser sandbox or another endpoint: its settings
 * count only once the person trusted that exact content (`cairn trust`, the same trust its hooks
 * need); until then they are ignored with a notice.
 */
export function loadWorkspaceSettings(home: string, cwd: string): { settings: Partial<Settings>; notice?: string } {
  const file = projectSettingsFile(cwd);
  // CAIRN_HOME may be this workspace's .cairn folder: then the file is the person's own settings.
  if (realOrResolved(file) === realOrResolved(path.join(home, "settings.json"))) return { settings: {} };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return { settings: {} };
  }
  let json: unknown;
  try {
    json = parseJsonConfig(file, text.replace(/^\uFEFF/, ""));
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    json = undefined; // a broken file sets nothing; the hooks loader already says so
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return { settings: {} };
  const { hooks: _hooks, ...rest } = json as Record<string, unknown>;
  if (Object.keys(rest).length === 0) return { settings: {} };
  const digest = hooksDigest(cwd, text, parseHooks(file, text).hooks).digest;
  if (!isTrusted(home, cwd, file, digest)) {
    const changed = trustRecord(home, cwd, file) !== undefined;
    return { settings: {}, notice: untrustedNotice({ file, workspace: workspaceKey(cwd), what: "settings", changed }) };
  }
  const parsed = settingsSchema.safeParse(rest);
  if (!parsed.success) throw new SessionError(schemaProblem(file, parsed.error, settingsSchema));
  return { settings: parsed.data };
}
