import type { CommandSandbox } from "../../sandbox/index.js";
import { commandEnv } from "../../terminal/index.js";
import { formatBytes, headBytes, tailBytes } from "../../tools/text-bytes.js";
import { attr, type Expansion, type MentionLimits, refused } from "./limits.js";
import { runCapped } from "./run-capped.js";

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

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
