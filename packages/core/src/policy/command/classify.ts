import path from "node:path";
import { analyseCommand } from "./analyse.js";
import { denyForms } from "./forms.js";
import { readsGitObjects } from "./git-history.js";
import { compilePattern, mayMatch } from "./glob.js";
import type { ShellParser } from "./parse-shell.js";
import { isOutsideWorkspace, leavesWorkspace, namesProtectedPath } from "./paths.js";
import { riskChecks, type CommandView, type RiskContext } from "./risk-checks.js";
import type { ScriptBaseline } from "./script-baseline.js";
import type { Redirect, Segment } from "./segments.js";
import { scriptSources, type ScriptSource } from "./workspace-scripts.js";
import { execCommand } from "./package-managers.js";
import { basenameWord, displayWord, staticValue } from "./words.js";

/**
 * "safe": nothing in the command is on the built-in list (risk-checks.ts) or matches an extra
 * pattern, so it may run without asking when the model also says it needs no approval.
 * "needs_approval": ask, whatever the model said. A command that cannot be analysed needs approval.
 */
export type CommandRisk = {
  risk: "safe" | "needs_approval";
  reasons: string[];
  /**
   * Script files (package.json's scripts, a Makefile…) the command would run that changed during
   * the task: no "always allow" rule covers it, since the rule was given for the scripts as they were.
   */
  changedScripts?: ScriptSource[];
};

export type ClassifyOptions = {
  /** The workspace root: writes outside it need approval. */
  cwd: string;
  /** More commands that need approval, as glob patterns in the syntax of the permission rules. */
  extraPatterns?: readonly string[];
  /**
   * The repository tracks files the ignore rules block: git commands that print stored content
   * (show, log -p, diff, grep, …) could hand them to the model, so they need the person. A function
   * is asked only for a command that reads git's objects: finding out runs git on the host.
   */
  gitTracksIgnored?: boolean | (() => boolean);
  /** What the workspace's script files held when the task began (script-baseline.ts); asked only for commands that run them. */
  scripts?: Pick<ScriptBaseline, "changed">;
};

const downloaders = new Set(["curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET"]);
const writeOperators = new Set([">", ">>", "&>", "&>>", ">|", "<>", ">&"]);
const readOperators = new Set(["<", "<&"]);

export function classifyCommand(command: string, options: ClassifyOptions, shell: ShellParser): CommandRisk {
  const analysis = analyseCommand(shell, command);
  if (!analysis.ok) {
    const what = analysis.kind === "opaque" ? "the command runs code Cairn cannot check" : "the command cannot be analysed";
    return { risk: "needs_approval", reasons: [`${what}: ${analysis.problem}`] };
  }
  const views = analysis.segments.flatMap(withExecTarget);
  const context: RiskContext = {
    cwd: options.cwd,
    uncertainCwd: views.some((v) => leavesWorkspace(v.name, v.args, options.cwd)),
    downloads: views.some((v) => v.name !== undefined && downloaders.has(v.name)),
  };
  const reasons = new Set<string>();
  for (const v of views) {
    for (const check of riskChecks) {
      const reason = check.check(v, context);
      if (reason !== undefined) reasons.add(reason);
    }
  }
  if (options.gitTracksIgnored !== undefined && views.some(readsGitObjects)) {
    const tracks = typeof options.gitTracksIgnored === "function" ? options.gitTracksIgnored() : options.gitTracksIgnored;
    if (tracks) reasons.add("git can print stored copies of files the ignore rules block (this repository tracks some)");
  }
  for (const redirect of analysis.redirects) {
    const reason = redirectOutside(redirect, context);
    if (reason !== undefined) reasons.add(reason);
  }
  const changedScripts = options.scripts === undefined ? [] : scriptsChangedBy(views, options.cwd, options.scripts);
  for (const source of changedScripts) reasons.add(changedScriptReason(source, options.cwd));
  const extra = (options.extraPatterns ?? []).filter((p) => p.trim() !== "").map(compilePattern);
  for (const segment of analysis.segments) {
    const forms = denyForms(segment);
    const hit = extra.find((pattern) => forms.some((form) => mayMatch(pattern, form)));
    if (hit !== undefined) reasons.add(`matches the pattern "${hit.source}" that needs approval`);
  }
  if (reasons.size === 0) return { risk: "safe", reasons: [] };
  return changedScripts.length === 0 ? { risk: "needs_approval", reasons: [...reasons] } : { risk: "needs_approval", reasons: [...reasons], changedScripts };
}

function scriptsChangedBy(views: readonly CommandView[], cwd: string, scripts: Pick<ScriptBaseline, "changed">): ScriptSource[] {
  return scriptSources(views, cwd).filter((source) => scripts.changed(source.file, source.part));
}

function changedScriptReason(source: ScriptSource, cwd: string): string {
  const relative = path.relative(cwd, source.file);
  const shown = relative === "" || relative.startsWith("..") || path.isAbsolute(relative) ? source.file : relative;
  const what = source.part === "scripts" ? `the scripts in ${shown}` : shown;
  return `${source.runner} would run ${what}, which changed during this task`;
}

/** A segment, and what a package manager's exec runs as a command of its own (`pnpm exec rm -rf d`). */
function withExecTarget(segment: Segment): CommandView[] {
  const outer = view(segment);
  const inner = outer.name === undefined ? undefined : execCommand(outer.name, outer.args);
  if (inner === undefined) return [outer];
  const [first, ...rest] = inner;
  const offset = outer.args.length - inner.length;
  return [outer, { segment, name: first === undefined ? undefined : path.posix.basename(first), args: rest, argWords: outer.argWords.slice(offset + 1) }];
}

function view(segment: Segment): CommandView {
  const [first, ...rest] = segment.words;
  return {
    segment,
    name: first === undefined ? undefined : staticValue(basenameWord(first)),
    args: rest.map(staticValue),
    argWords: rest,
  };
}

function redirectOutside(redirect: Redirect, context: RiskContext): string | undefined {
  if (redirect.harmless || redirect.target === undefined) return undefined;
  if (readOperators.has(redirect.operator)) {
    // `< /proc/$PPID/environ`: reading outside the workspace can hand secrets to the model.
    const source = staticValue(redirect.target);
    if (source === undefined) return `reads input from a path computed at run time (${displayWord(redirect.target)})`;
    return isOutsideWorkspace(context.cwd, source, context.uncertainCwd) ? `reads input from outside the workspace (${source})` : undefined;
  }
  if (!writeOperators.has(redirect.operator)) return undefined;
  const target = staticValue(redirect.target);
  if (target === undefined) return `redirects output to a path computed at run time (${displayWord(redirect.target)})`;
  if (isOutsideWorkspace(context.cwd, target, context.uncertainCwd)) return `redirects output outside the workspace (${target})`;
  const guarded = namesProtectedPath(context.cwd, target, context.uncertainCwd);
  return guarded === undefined ? undefined : `redirects output into a protected file (${guarded})`;
}
