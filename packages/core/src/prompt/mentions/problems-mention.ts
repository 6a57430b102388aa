import path from "node:path";
import { problemLine, recentFiles, type LanguageServers } from "../../lsp/index.js";
import type { IgnoreRules } from "../../policy/ignore-rules.js";
import type { CommandSandbox } from "../../sandbox/index.js";
import { commandEnv } from "../../terminal/index.js";
import { formatBytes, headBytes, tailBytes } from "../../tools/text-bytes.js";
import { attr, type Expansion, type MentionLimits, refused } from "./limits.js";
import { runCapped } from "./run-capped.js";

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** Files @problems has the language servers check when the task has none open yet: the most recently changed. */
const RECENT_FILES = 20;
/** Problems listed per file, and in all. */
const PER_FILE = 20;
const IN_ALL = 100;

/**
 * `@problems` without a configured checker: the errors the task's language servers see in the
 * files they have open (read or edited in this task) or, when none is open yet, in the
 * workspace's most recently changed files they check.
 */
export async function expandServerProblems(raw: string, servers: LanguageServers, cwd: string, ignore: IgnoreRules, signal: AbortSignal | undefined): Promise<Expansion> {
  const notes: string[] = [];
  const recent = recentFiles(cwd, (file) => servers.handles(file), (file) => ignore.ignores(file), RECENT_FILES);
  const { checked, found } = await servers.problemsIn(recent, signal ?? new AbortController().signal, (message) => notes.push(message));
  if (checked === 0) {
    return refused(raw, 'no language server checked any file (none of the workspace\'s files has one, or they did not answer). Set "problemsCommand" in settings.json to run a checker instead, e.g. "npx tsc --noEmit -p .".');
  }
  const lines: string[] = [];
  let listed = 0;
  let total = 0;
  for (const { file, problems } of found) {
    total += problems.length;
    if (listed >= IN_ALL) continue;
    lines.push(path.relative(cwd, file));
    for (const problem of problems.slice(0, Math.min(PER_FILE, IN_ALL - listed))) {
      lines.push(`  ${problemLine(problem)}`);
      listed += 1;
    }
    if (problems.length > PER_FILE) lines.push(`  … and ${problems.length - PER_FILE} more in this file.`);
  }
  if (total > listed) lines.push(`[${total - listed} more problems not listed.]`);
  const content = lines.length === 0 ? `No errors in the ${checked} file${checked === 1 ? "" : "s"} checked.` : lines.join("\n");
  return { block: `<workspace_diagnostics source="language servers" files_checked="${checked}">\n${content}\n</workspace_diagnostics>`, notes };
}

/**
 * `@problems`: the output of the checker the person configured (settings.json `problemsCommand`,
 * e.g. "npx tsc --noEmit -p ."), run in the workspace through the shell. A non-zero exit is
 * normal for a checker that found problems; only a timeout or a failure to start is a note.
 *
 * A checker runs the workspace's code (node_modules/.bin/tsc, package.json scripts, config
 * files), which the model may have edited, and may come from the workspace's own settings: so it
 * runs in the task's command sandbox when there is one, with a command's rights and environment.
 */
export async function expandProblems(
  raw: string,
  command: string | undefined,
  cwd: string,
  limits: MentionLimits,
  signal: AbortSignal | undefined,
  sandbox?: CommandSandbox,
): Promise<Expansion> {
  if (command === undefined || command.trim() === "") {
    return refused(raw, 'no problems checker is configured. Set "problemsCommand" in settings.json (in CAIRN_HOME), for example "problemsCommand": "npx tsc --noEmit -p .".');
  }
  let launch = { file: command, args: [] as string[], shell: true, env: commandEnv() };
  if (sandbox) {
    const wrapped = sandbox.wrap("/bin/sh", ["-c", command], { cwd, env: launch.env, dropSecrets: true });
    if (!wrapped.ok) return refused(raw, wrapped.message);
    launch = { file: wrapped.file, args: wrapped.args, shell: false, env: wrapped.env };
  }
  const run = await runCapped(launch.file, launch.args, {
    cwd,
    shell: launch.shell,
    env: launch.env,
    mergeStderr: true,
    timeoutMs: limits.problemsTimeoutMs,
    maxBytes: limits.problemsBytes,
    ...(signal ? { signal } : {}),
  });
  if (run.startError) return refused(raw, `the problems command could not start (${run.startError}).`);
  const notes: string[] = [];
  const head = headBytes(run.output.replace(ANSI, "").trimEnd(), limits.problemsBytes);
  let content = head.text.trimEnd();
  if (content === "") content = run.exitCode === 0 ? "No problems reported." : "(no output)";
  if (run.cut) {
    content += `\n[Output cut at ${formatBytes(limits.problemsBytes)} of ${formatBytes(run.totalBytes)}.]`;
    notes.push(`${raw}: the checker's output was cut at ${formatBytes(limits.problemsBytes)}.`);
  }
  if (run.timedOut) {
    content += `\n[The command did not finish within ${limits.problemsTimeoutMs / 1000} s and was stopped; the output above is partial.]`;
    notes.push(`${raw}: "${command}" timed out after ${limits.problemsTimeoutMs / 1000} s.`);
  }
  const exit = run.exitCode === null ? "" : ` exit_code="${run.exitCode}"`;
  return { block: `<workspace_diagnostics command="${attr(command)}"${exit}>\n${content}\n</workspace_diagnostics>`, notes };
}

/** `@terminal`: the latest command output, as the host keeps it; its end is kept when long. */
export function expandTerminal(raw: string, latest: (() => string | undefined) | undefined, limits: MentionLimits): Expansion {
  if (!latest) return refused(raw, "this host does not share terminal output.");
  const output = latest()?.replace(ANSI, "").trimEnd();
  if (output === undefined || output === "") return refused(raw, "no command output yet in this session.");
  const tail = tailBytes(output, limits.terminalBytes);
  const notes: string[] = [];
  let content = tail.text;
  if (tail.cut) {
    content = `[Earlier output cut; showing the last ${formatBytes(limits.terminalBytes)} of ${formatBytes(Buffer.byteLength(output))}.]\n${content}`;
    notes.push(`${raw}: showing the last ${formatBytes(limits.terminalBytes)} of the output.`);
  }
  return { block: `<terminal_output>\n${content}\n</terminal_output>`, notes };
}
