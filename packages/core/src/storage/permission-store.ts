import { mkdirSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { parsePermissionRule, type RuleScope } from "../policy/permission-rules.js";
import type { ActiveRule } from "../policy/decide-call.js";
import { writeFileAtomicSync } from "../disk/atomic-write.js";
import { ConfigFileError, readJsonConfig, schemaProblem } from "../disk/config-file.js";
// The workspace as the key of its rules: its real path, as trust records name it, so a link to it names the same rules.
import { workspaceKey } from "../trust/trust-store.js";

/**
 * CAIRN_HOME/permissions.json: the "always allow" rules the person saved, for every workspace
 * (user) or one workspace, keyed by its real path. Kept in CAIRN_HOME, never in the repository:
 * a cloned repository must not be able to grant itself rules.
 */
const fileSchema = z
  .object({
    user: z.array(z.string()).default([]),
    workspaces: z.record(z.string(), z.array(z.string())).default({}),
  })
  .strict();

type PermissionsFile = z.infer<typeof fileSchema>;

/** permissions.json cannot be read or has the wrong shape: the person must fix it (hosts show it as a usage error). */
export class PermissionsFileError extends ConfigFileError {
  override name = "PermissionsFileError";
  readonly kind = "usage" as const;
}

/** A saved rule as `cairn permissions` lists it. */
export type SavedRule = { scope: Exclude<RuleScope, "task">; text: string };

export function permissionsFile(home: string): string {
  return path.join(home, "permissions.json");
}

function readFile(home: string): PermissionsFile {
  const file = permissionsFile(home);
  let json: unknown;
  try {
    json = readJsonConfig(file);
  } catch (error) {
    throw new PermissionsFileError((error as Error).message);
  }
  const parsed = fileSchema.safeParse(json ?? {});
  if (!parsed.success) throw new PermissionsFileError(schemaProblem(file, parsed.error, fileSchema));
  return parsed.data;
}

/** The rules saved for this workspace and for the user, workspace ones first. */
export function listPermissionRules(home: string, cwd: string): SavedRule[] {
  const data = readFile(home);
  return [
    ...(data.workspaces[workspaceKey(cwd)] ?? []).map((text) => ({ scope: "workspace" as const, text })),
    ...data.user.map((text) => ({ scope: "user" as const, text })),
  ];
}

/** The saved rules in force in this workspace, parsed; a rule that no longer parses is left out. */
export function loadPermissionRules(home: string, cwd: string): ActiveRule[] {
  return listPermissionRules(home, cwd).flatMap((saved) => {
    const parsed = parsePermissionRule(saved.text);
    return parsed.ok ? [{ ...parsed.rule, scope: saved.scope }] : [];
  });
}

function write(home: string, data: PermissionsFile): void {
  mkdirSync(home, { recursive: true });
  writeFileAtomicSync(permissionsFile(home), `${JSON.stringify(data, null, 2)}\n`);
}

/** Saves a rule (already parsed: its canonical text); saving one that is there changes nothing. */
export function addPermissionRule(home: string, cwd: string, scope: Exclude<RuleScope, "task">, text: string): void {
  const data = readFile(home);
  if (scope === "user") {
    if (!data.user.includes(text)) data.user.push(text);
  } else {
    const key = workspaceKey(cwd);
    const rules = data.workspaces[key] ?? [];
    if (!rules.includes(text)) data.workspaces[key] = [...rules, text];
  }
  write(home, data);
}

/** Removes a saved rule as listed (workspace or user); false when it is not there. */
export function removePermissionRule(home: string, cwd: string, rule: SavedRule): boolean {
  const data = readFile(home);
  if (rule.scope === "user") {
    if (!data.user.includes(rule.text)) return false;
    data.user = data.user.filter((text) => text !== rule.text);
  } else {
    const key = workspaceKey(cwd);
    const rules = data.workspaces[key] ?? [];
    if (!rules.includes(rule.text)) return false;
    const kept = rules.filter((text) => text !== rule.text);
    if (kept.length > 0) data.workspaces[key] = kept;
    else delete data.workspaces[key];
  }
  write(home, data);
  return true;
}
