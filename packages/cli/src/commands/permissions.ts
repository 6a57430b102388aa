import { realpathSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { addPermissionRule, allTools, cairnHome, ConfigFileError, listPermissionRules, nearestName, parsePermissionRule, permissionsFile, removePermissionRule, ruleProblem, type SavedRule } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";

export const permissionsHelp = `Usage:
  cairn permissions [--cwd dir]                  the "always allow" rules in force here, numbered, with their scope
  cairn permissions add [--user] [--cwd dir] <rule>  allow calls matching <rule> without asking (this workspace, or --user: every workspace)
  cairn permissions remove [--cwd dir] <n|rule>  remove a rule by its number in the list, or by its text

A rule is tool(pattern):
  execute_command(npm test *)   commands; every part of a chain or pipe must match, redirects never do
  write_to_file(src/**)         paths relative to the workspace (* within a folder, ** across folders);
                                never a path outside the workspace or a protected file (.git, .cairn, ...)
  use_mcp_tool(github/create_issue)   browser_action(localhost)   read_file(*)
Rules are kept in CAIRN_HOME/permissions.json, never in the repository. Commands still run in the sandbox.`;

/** `cairn permissions`: list, add and remove the saved "always allow" rules. */
export function permissionsCommand(argv: string[], io: Io): number {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { cwd: { type: "string" }, user: { type: "boolean" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see cairn permissions --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${permissionsHelp}\n`);
    return 0;
  }
  const home = cairnHome(io.env);
  const cwd = workspace(values.cwd ?? process.cwd());
  const [action, ...rest] = positionals;
  try {
    if (action === undefined || action === "list") {
      if (rest.length > 0 || values.user) throw new UsageError("cairn permissions lists the rules; to add one: cairn permissions add [--user] '<rule>'.");
      return list(home, cwd, io);
    }
    if (action === "add") return add(home, cwd, rest.join(" "), values.user === true, io);
    if (action === "remove") {
      if (values.user) throw new UsageError("remove takes the rule's number or text, not --user; see cairn permissions for the list.");
      return remove(home, cwd, rest.join(" "), io);
    }
  } catch (error) {
    if (error instanceof ConfigFileError) throw new UsageError(error.message);
    throw error;
  }
  throw new UsageError(`Unknown action "${action}". Use cairn permissions, cairn permissions add <rule> or cairn permissions remove <n|rule>.`);
}

function workspace(dir: string): string {
  const stats = statSync(dir, { throwIfNoEntry: false });
  if (!stats?.isDirectory()) throw new UsageError(`--cwd ${dir}: no such folder. Give the workspace folder.`);
  return realpathSync(dir);
}

function list(home: string, cwd: string, io: Io): number {
  const rules = listPermissionRules(home, cwd);
  if (rules.length === 0) {
    io.stdout(`No saved rules for ${cwd}. Add one with: cairn permissions add 'execute_command(npm test *)'\n`);
    return 0;
  }
  rules.forEach((rule, i) => io.stdout(`${i + 1}. ${rule.text}  (${rule.scope === "user" ? "user: every workspace" : "this workspace"})\n`));
  return 0;
}

function add(home: string, cwd: string, text: string, user: boolean, io: Io): number {
  if (text.trim() === "") throw new UsageError("Give the rule to add, e.g. cairn permissions add 'execute_command(npm test *)'.");
  const parsed = parsePermissionRule(text);
  if (!parsed.ok) throw new UsageError(parsed.error);
  const unknown = unknownTool(parsed.rule.tool);
  if (unknown) throw new UsageError(unknown);
  const problem = ruleProblem(parsed.rule);
  if (problem) throw new UsageError(problem);
  addPermissionRule(home, cwd, user ? "user" : "workspace", parsed.rule.text);
  io.stdout(`Added ${parsed.rule.text} for ${user ? "every workspace" : cwd} (in ${permissionsFile(home)}).\n`);
  return 0;
}

/** Tools a rule can name: the built-in ones, and those a session adds (MCP, hand-off, sub-agents). */
const ruleTools = [...allTools.map((t) => t.name), "use_mcp_tool", "access_mcp_resource", "new_task", "use_subagents"];

/** A rule naming no tool of Cairn's would be saved and never match (a typo, or another agent's syntax such as Bash(…)). */
function unknownTool(tool: string): string | undefined {
  if (ruleTools.includes(tool)) return undefined;
  const near = nearestName(tool, ruleTools);
  return `"${tool}" is not one of Cairn's tools${near ? ` (did you mean ${near}?)` : ""}; a rule names one of: ${ruleTools.join(", ")}.`;
}

function remove(home: string, cwd: string, what: string, io: Io): number {
  if (what.trim() === "") throw new UsageError("Give the number or the text of the rule to remove; cairn permissions lists them.");
  const rules = listPermissionRules(home, cwd);
  const target = pick(rules, what.trim());
  if (!target || !removePermissionRule(home, cwd, target)) {
    throw new UsageError(`No saved rule "${what}" here; cairn permissions lists them with their numbers.`);
  }
  io.stdout(`Removed ${target.text} (${target.scope === "user" ? "every workspace" : cwd}).\n`);
  return 0;
}

function pick(rules: readonly SavedRule[], what: string): SavedRule | undefined {
  if (/^\d+$/.test(what)) return rules[Number(what) - 1];
  const parsed = parsePermissionRule(what);
  const text = parsed.ok ? parsed.rule.text : what;
  return rules.find((rule) => rule.text === text);
}
