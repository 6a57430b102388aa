import { z } from "zod";

const pattern = z.string().refine((p) => p.trim() !== "", { message: "a pattern must not be empty" });

/**
 * Command permission rules, from CAIRN_COMMAND_PERMISSIONS or settings.json:
 * `{"allow": ["git *", "npm test"], "deny": ["rm -rf *"], "allowRedirects": false}`.
 */
export const commandPermissionsSchema = z
  .object({
    allow: z.array(pattern).default([]).describe("Glob patterns of commands that may run; when non-empty, anything else is denied"),
    deny: z.array(pattern).default([]).describe("Glob patterns of commands that never run; deny beats allow"),
    allowRedirects: z.boolean().default(false).describe("Allow redirects such as > file and heredocs (2>&1 and /dev/null are always fine)"),
  })
  .strict();

export type CommandPermissions = z.infer<typeof commandPermissionsSchema>;

export type ParsedPermissions = { ok: true; permissions: CommandPermissions } | { ok: false; error: string };

const expected = 'expected {"allow": ["git *"], "deny": ["rm -rf *"], "allowRedirects": false}';

/** Parses the JSON text of CAIRN_COMMAND_PERMISSIONS; the error is one line that says how to fix it. */
export function parseCommandPermissions(json: string, source = "CAIRN_COMMAND_PERMISSIONS"): ParsedPermissions {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { ok: false, error: `${source} is not valid JSON (${why}); ${expected}` };
  }
  return validateCommandPermissions(value, source);
}

/** Checks an already-parsed value, such as the commandPermissions entry of settings.json. */
export function validateCommandPermissions(value: unknown, source = "commandPermissions"): ParsedPermissions {
  const result = commandPermissionsSchema.safeParse(value);
  if (result.success) return { ok: true, permissions: result.data };
  const issue = result.error.issues[0];
  const path = (issue?.path ?? []).map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("");
  const where = `${source}${path}`;
  return { ok: false, error: `${where}: ${issue?.message ?? "invalid"}; ${expected}` };
}

/** No patterns at all: Cairn does not restrict commands (as in Cline). */
export function hasCommandRules(permissions: CommandPermissions): boolean {
  return permissions.allow.length > 0 || permissions.deny.length > 0;
}
