import path from "node:path";
import type { CallFacts, PathFact } from "../policy/call-facts.js";
import type { CommandRisk, ShellParser } from "../policy/command/index.js";
import type { IgnoreRules } from "../policy/ignore-rules.js";
import type { CallRecord } from "../policy/loop-detection.js";
import { protectedPath } from "../policy/protected-paths.js";
import { secretRead } from "../policy/secret-paths.js";
import { isInside, judgePath, realPath, workspaceAbsolute } from "../policy/workspace.js";
import type { AnyTool, Mode, ToolAccess } from "../tools/tool.js";

/**
 * `readRoots`: real folders outside the workspace whose reads count as plain reads (the listed skills' folders).
 * `mode`, `ignore`, `history`: the task's, for the refusals (a tool this mode does not offer, an ignored path, narration).
 */
type Where = {
  cwd: string;
  scratchDir: string;
  home?: string | undefined;
  readRoots?: readonly string[] | undefined;
  mode?: Mode | undefined;
  ignore?: IgnoreRules | undefined;
  history?: readonly CallRecord[] | undefined;
};

/** The paths a call names, as the tool declares them; a tool whose access() throws names none. */
export function accessesOf(tool: AnyTool | undefined, input: Record<string, unknown>): Array<Exclude<ToolAccess, { type: "none" }>> {
  try {
    return (tool?.access?.(input) ?? []).filter((a): a is Exclude<ToolAccess, { type: "none" }> => a.type !== "none" && typeof a.path === "string");
  } catch {
    return [];
  }
}

/** The real paths a call's paths are judged against, each resolved at most once per call however many paths it names. */
type Roots = { workspace: string | undefined; scratch: () => string | undefined };

function pathFact(where: Where, roots: Roots, access: Exclude<ToolAccess, { type: "none" }>): PathFact {
  // The path as the tool will use it (`~` expanded), then judged on what it really is: resolved once, here.
  const resolved = judgePath(roots.workspace, workspaceAbsolute(where.cwd, access.path));
  const fact: PathFact = { access: access.type, path: access.path, absolute: resolved.absolute, external: resolved.external };
  if (resolved.external) {
    const scratch = roots.scratch();
    if (scratch !== undefined && resolved.real !== undefined && isInside(scratch, resolved.real)) fact.inReadRoot = true;
    // A listed skill's folder (its SKILL.md, references, scripts to read): the model was told to read there.
    else if (resolved.real !== undefined && where.readRoots?.some((root) => isInside(root, resolved.real as string))) fact.inReadRoot = true;
  } else if (roots.workspace !== undefined && resolved.real !== undefined) {
    fact.relative = path.relative(roots.workspace, resolved.real).split(path.sep).join("/");
  }
  const home = where.home ? { home: where.home } : {};
  // A protected file to change, or one of Cairn's secrets to read (a fleet job's run is approved by its worker, not a person).
  // The secret is guarded for writes too: one the model wrote is one it knows.
  const secret = secretRead(resolved.absolute, { cwd: where.cwd, ...home });
  const hit = access.type === "edit" ? (protectedPath(resolved.absolute, { cwd: where.cwd, ...home }) ?? secret) : secret;
  if (hit) fact.protected = hit;
  return fact;
}

function pathFacts(where: Where, accesses: Array<Exclude<ToolAccess, { type: "none" }>>): PathFact[] {
  if (accesses.length === 0) return [];
  let scratch: { real: string | undefined } | undefined;
  const roots: Roots = {
    workspace: realPath(where.cwd),
    // Only a path outside the workspace is judged against the scratch folder.
    scratch: () => (scratch ??= { real: realPath(where.scratchDir) }).real,
  };
  return accesses.map((access) => pathFact(where, roots, access));
}

/** The first path of the call that the workspace's ignore files block, if any. */
function ignoredPath(where: Where, ignore: IgnoreRules, tool: AnyTool, input: Record<string, unknown>): string | undefined {
  return accessesOf(tool, input).find((access) => ignore.ignores(workspaceAbsolute(where.cwd, access.path)))?.path;
}

/**
 * What policy needs to decide on one call, read from the tool and the file system now. `asked`:
 * the model's own input when a hook rewrote it, whose paths are held to the ignore files too.
 */
export function gatherFacts(
  where: Where,
  tool: AnyTool,
  input: Record<string, unknown>,
  extra: { commandRisk?: CommandRisk | undefined; shell?: ShellParser | undefined; hook?: CallFacts["hook"]; asked?: Record<string, unknown> | undefined },
): CallFacts {
  let autoApproved = false;
  try {
    autoApproved = tool.autoApproved?.(input) === true;
  } catch {
    autoApproved = false;
  }
  const facts: CallFacts = {
    tool: tool.name,
    kind: tool.kind,
    input,
    paths: pathFacts(where, accessesOf(tool, input)),
    autoApproved,
  };
  if (tool.kind === "command" && typeof input.command === "string" && extra.commandRisk && extra.shell) {
    facts.command = {
      text: input.command,
      risk: extra.commandRisk.risk,
      reasons: [...extra.commandRisk.reasons],
      modelAsksApproval: input.requires_approval !== false,
      shell: extra.shell,
      ...(extra.commandRisk.changedScripts ? { changedScripts: true } : {}),
    };
  }
  if (extra.hook) facts.hook = extra.hook;
  if (where.mode) facts.mode = { now: where.mode, offered: tool.modes.includes(where.mode) };
  const previous = where.history?.at(-1)?.name;
  if (previous !== undefined) facts.previous = previous;
  const { ignore } = where;
  const ignored = ignore && ((extra.asked && ignoredPath(where, ignore, tool, extra.asked)) || ignoredPath(where, ignore, tool, input));
  if (ignored) facts.ignored = { path: ignored, by: ignore.files.join(" / ") || ".cairnignore" };
  return facts;
}
