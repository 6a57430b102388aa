import type { CallFacts } from "./call-facts.js";
import { checkCommand } from "./command/index.js";

/** Where an "always allow" rule holds: this task only, this workspace, or every workspace of the user. */
export type RuleScope = "task" | "workspace" | "user";

/**
 * An "always allow" rule, written `tool(pattern)`:
 * - `execute_command(npm test *)`: a command glob, matched per segment on the real shell parse;
 * - `write_to_file(src/**)`: a workspace-relative path glob (`*` within a folder, `**` across);
 * - `use_mcp_tool(github/create_issue)`, `access_mcp_resource(server/uri)`;
 * - `browser_action(localhost)`: the host a launch opens;
 * - `tool(*)`: any call of that tool (its paths still never outside the workspace).
 */
export type PermissionRule = { text: string; tool: string; pattern: string };

export type ParsedRule = { ok: true; rule: PermissionRule } | { ok: false; error: string };

const toolName = /^[A-Za-z0-9_.:-]+$/;

/** Reads `tool(pattern)`; the error says how to write it. */
export function parsePermissionRule(text: string): ParsedRule {
  const trimmed = text.trim();
  const open = trimmed.indexOf("(");
  if (open <= 0 || !trimmed.endsWith(")")) {
    return { ok: false, error: `"${text}" is not a rule; write it as tool(pattern), e.g. "execute_command(npm test *)" or "write_to_file(src/**)".` };
  }
  const tool = trimmed.slice(0, open).trim();
  const written = trimmed.slice(open + 1, -1).trim();
  // A command pattern matches words joined by single spaces (command/glob.ts), so it is kept that way: one rule, one text.
  const pattern = tool === "execute_command" ? written.replace(/[ \t]+/g, " ") : written;
  if (!toolName.test(tool)) return { ok: false, error: `"${tool}" is not a tool name; write the rule as tool(pattern), e.g. "execute_command(npm test *)".` };
  if (pattern === "") return { ok: false, error: `The rule "${text}" has an empty pattern; use ${tool}(*) to allow every call of ${tool}.` };
  if (/[\r\n\0]/.test(pattern)) return { ok: false, error: `The rule ${JSON.stringify(text)} contains a line break or NUL; write it on one line.` };
  return { ok: true, rule: { text: `${tool}(${pattern})`, tool, pattern } };
}

/** A path pattern must stay inside the workspace: relative, without `..` or `~`. */
function pathPatternProblem(pattern: string): string | undefined {
  if (pattern === "*" || pattern === "**") return undefined;
  if (pattern.startsWith("/") || pattern.startsWith("~") || /^[A-Za-z]:/.test(pattern)) return "it must be relative to the workspace";
  if (pattern.split("/").some((part) => part === "..")) return "it must not contain .. (rules never reach outside the workspace)";
  return undefined;
}

/** A path glob as a regular expression: `**` any folders, `*` and `?` within one name. */
function pathGlob(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "*" && pattern[i + 1] === "*") {
      const slash = pattern[i + 2] === "/";
      source += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** A simple glob for names (MCP tools, hosts): `*` any run of characters. */
function nameGlob(pattern: string): RegExp {
  const source = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${source}$`);
}

/**
 * Rules are checked on every call that needs approval, against the same few patterns: each
 * pattern is compiled once. Keyed by pattern (a rule is copied into each task's state, the pattern
 * stays); the patterns are the person's rules, and the bound only guards against a host that
 * checks endless one-off rules. `null`: a path pattern that can never match (pathPatternProblem).
 */
const compiledGlobs = { path: new Map<string, RegExp | null>(), name: new Map<string, RegExp>() };
const MAX_COMPILED = 1_000;

function compiled<T>(cache: Map<string, T>, pattern: string, compile: (pattern: string) => T): T {
  if (cache.has(pattern)) return cache.get(pattern)!;
  const glob = compile(pattern);
  if (cache.size >= MAX_COMPILED) cache.clear();
  cache.set(pattern, glob);
  return glob;
}

const compiledPathGlob = (pattern: string): RegExp | null => compiled(compiledGlobs.path, pattern, (p) => (pathPatternProblem(p) ? null : pathGlob(p)));
const compiledNameGlob = (pattern: string): RegExp => compiled(compiledGlobs.name, pattern, nameGlob);

function commandMatches(pattern: string, facts: CallFacts): boolean {
  const command = facts.command;
  // A rule for `npm test` was given for the scripts as they were: once the task changed them, the person decides again.
  if (!command || command.changedScripts) return false;
  // `npm test *` also covers `npm test` itself, as people mean it.
  const allow = pattern.endsWith(" *") ? [pattern, pattern.slice(0, -2)] : [pattern];
  // Every segment must match and the command must parse fully (check-command.ts): fails closed.
  return checkCommand(command.text, { allow, deny: [], allowRedirects: false }, command.shell).allowed;
}

function urlHost(url: unknown): string | undefined {
  if (typeof url !== "string") return undefined;
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}

/** Whether the rule allows this call. Never for a path outside the workspace or a protected file. */
export function ruleMatches(rule: PermissionRule, facts: CallFacts): boolean {
  if (rule.tool !== facts.tool) return false;
  if (facts.paths.some((p) => p.relative === undefined || p.protected)) return false;
  if (facts.kind === "command") return commandMatches(rule.pattern, facts);
  if (rule.pattern === "*") return true;
  if (facts.paths.length > 0) {
    const glob = compiledPathGlob(rule.pattern);
    return glob !== null && facts.paths.every((p) => glob.test(p.relative!));
  }
  if (facts.tool === "use_mcp_tool" || facts.tool === "access_mcp_resource") {
    const target = facts.tool === "use_mcp_tool" ? facts.input.tool_name : facts.input.uri;
    return typeof facts.input.server_name === "string" && typeof target === "string" && compiledNameGlob(rule.pattern).test(`${facts.input.server_name}/${target}`);
  }
  if (facts.kind === "browser") {
    const host = urlHost(facts.input.url);
    return host !== undefined && compiledNameGlob(rule.pattern).test(host);
  }
  return false;
}

/** The first rule that allows the call, if any. */
export function matchingRule(rules: readonly PermissionRule[], facts: CallFacts): PermissionRule | undefined {
  return rules.find((rule) => ruleMatches(rule, facts));
}

/** Why a rule can never match anything, for `cairn permissions add`; undefined when it can. */
export function ruleProblem(rule: PermissionRule): string | undefined {
  const pathTools = new Set(["write_to_file", "replace_in_file", "read_file", "list_files", "search_files", "list_code_definition_names", "read_document"]);
  if (!pathTools.has(rule.tool)) return undefined;
  const problem = pathPatternProblem(rule.pattern);
  return problem ? `The path pattern of "${rule.text}" cannot be used: ${problem}.` : undefined;
}

function folderOf(relative: string): string {
  const slash = relative.lastIndexOf("/");
  return slash === -1 ? "" : relative.slice(0, slash);
}

/** A plain word of a command (a program, a subcommand), safe to put in a rule as it is. */
const plainWord = /^[A-Za-z0-9_./:@+-]+$/;

/**
 * The rule "always allow" would add for this call, shown to the person before they choose it;
 * undefined when no rule may cover it (a protected file, a path outside the workspace).
 */
export function suggestedRule(facts: CallFacts): string | undefined {
  if (facts.paths.some((p) => p.protected || p.relative === undefined)) return undefined;
  if (facts.kind === "command") {
    const words = (facts.command?.text.trim() ?? "").split(/\s+/);
    if (!plainWord.test(words[0] ?? "")) return undefined;
    const head = words.length > 1 && plainWord.test(words[1]!) && !words[1]!.startsWith("-") ? words.slice(0, 2) : words.slice(0, 1);
    const suggestion = parsePermissionRule(`${facts.tool}(${head.join(" ")}${words.length > head.length ? " *" : ""})`);
    // Offered only when it covers this very call: a chain, a redirect or a substitution gets none.
    return suggestion.ok && ruleMatches(suggestion.rule, facts) ? suggestion.rule.text : undefined;
  }
  if (facts.paths.length > 0) {
    // The folder of the file, as "allow edits here for the rest of the task" means; a folder whose
    // name holds glob characters would cover more than the person saw, so it gets none.
    const folders = [...new Set(facts.paths.map((p) => folderOf(p.relative ?? "")))];
    if (folders.length !== 1 || /[*?]/.test(folders[0]!)) return undefined;
    return `${facts.tool}(${folders[0] === "" ? "**" : `${folders[0]}/**`})`;
  }
  if (facts.tool === "use_mcp_tool" && typeof facts.input.tool_name === "string") return `${facts.tool}(${String(facts.input.server_name)}/${facts.input.tool_name})`;
  if (facts.tool === "access_mcp_resource" && typeof facts.input.uri === "string") return `${facts.tool}(${String(facts.input.server_name)}/${facts.input.uri})`;
  if (facts.kind === "browser") return `${facts.tool}(${urlHost(facts.input.url) ?? "*"})`;
  return `${facts.tool}(*)`;
}
