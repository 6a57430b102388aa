import type { HookEventName } from "./events.js";
import type { HookRun } from "./run-hook.js";

/** Something the person should see; `{ type: "system", subtype: "notice", ...notice }` is its AgentEvent. */
export type HookNotice = { level: "info" | "warning"; message: string };

/** What one hook said, in Cairn's terms, before the replies of parallel hooks are merged. */
export type HookReply = {
  /** Exit 2 or `decision: "block"`: the reason (PreToolUse: deny; Stop: keep going). */
  block?: string;
  /** PreToolUse's hookSpecificOutput.permissionDecision (or the older decision "approve"). */
  permission?: { decision: "allow" | "deny" | "ask"; reason?: string };
  additionalContext?: string;
  /** PreToolUse's hookSpecificOutput.updatedInput. */
  updatedInput?: Record<string, unknown>;
  /** `continue: false`: the run must end, for this reason. */
  endRun?: string;
  notices: HookNotice[];
};

/** Claude Code caps what a hook injects into the conversation at 10,000 characters. */
export const MAX_HOOK_TEXT = 10_000;

/** Events whose plain (non-JSON) stdout on exit 0 becomes context for the model, as in Claude Code. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set(["UserPromptSubmit", "SessionStart"]);
/** Events where exit 2 (or decision "block") changes what happens; elsewhere it is only shown. */
const CAN_BLOCK: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"]);
/** Events whose hookSpecificOutput.additionalContext reaches the model. */
const TAKES_CONTEXT: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart"]);

/** Reads one finished hook by Claude Code's rules: exit 0 passes (stdout JSON may decide), 2 blocks, others are ignored errors. */
export function readReply(event: HookEventName, command: string, timeoutMs: number, run: HookRun): HookReply {
  const name = `${event} hook ${quote(command)}`;
  switch (run.type) {
    case "aborted":
      return { notices: [] };
    case "failed":
      return { notices: [warning(`${name} did not run (${run.message}); the task goes on without it.`)] };
    case "timeout":
      return { notices: [warning(`${name} timed out after ${seconds(timeoutMs)} and was stopped; it is ignored. Raise its "timeout" (seconds) or make it faster.`)] };
    case "exited":
      break;
  }
  if (run.code === 2) return blocked(event, name, run.stderr);
  if (run.code !== 0) {
    const how = run.code === null ? `was killed by ${run.signal ?? "a signal"}` : `failed with exit code ${run.code}`;
    const detail = firstLines(run.stderr) || firstLines(run.stdout);
    const fix = run.code === 127 ? " (command not found: check the path in the settings)" : "";
    return { notices: [warning(`${name} ${how}${fix}${detail ? `: ${detail}` : ""}. It is ignored; only exit code 2 blocks.`)] };
  }
  const json = parseObject(run.stdout);
  if (json === undefined) {
    const text = run.stdout.trim();
    return STDOUT_IS_CONTEXT.has(event) && text !== "" ? { additionalContext: cap(text), notices: [] } : { notices: [] };
  }
  return fromJson(event, name, json);
}

function blocked(event: HookEventName, name: string, stderr: string): HookReply {
  const reason = stderr.trim();
  if (!CAN_BLOCK.has(event)) {
    return { notices: [warning(`${name} exited with 2${reason ? `: ${firstLines(reason)}` : ""}. ${event} cannot be blocked; the task goes on.`)] };
  }
  return { block: reason === "" ? `${name} blocked this (exit code 2) without saying why.` : cap(reason), notices: [] };
}

function fromJson(event: HookEventName, name: string, json: Record<string, unknown>): HookReply {
  const reply: HookReply = { notices: [] };
  const reason = text(json.reason);
  if (typeof json.systemMessage === "string" && json.systemMessage.trim() !== "") {
    reply.notices.push({ level: "info", message: `${name}: ${json.systemMessage.trim()}` });
  }
  if (json.continue === false) reply.endRun = text(json.stopReason) ?? `${name} stopped the task.`;

  if (json.decision === "block" && CAN_BLOCK.has(event)) reply.block = reason ?? defaultBlockReason(event, name);
  if (json.decision === "approve" && event === "PreToolUse") reply.permission = { decision: "allow", ...(reason ? { reason } : {}) };
  if (json.decision !== undefined && json.decision !== "block" && json.decision !== "approve") {
    reply.notices.push(warning(`${name} printed decision ${JSON.stringify(json.decision)}; only "block" (or "approve" for PreToolUse) means something, so it is ignored.`));
  }

  const specific = json.hookSpecificOutput;
  if (typeof specific !== "object" || specific === null || Array.isArray(specific)) return reply;
  const output = specific as Record<string, unknown>;
  if (TAKES_CONTEXT.has(event)) {
    const context = text(output.additionalContext);
    if (context) reply.additionalContext = cap(context);
  }
  if (event !== "PreToolUse") return reply;
  const decision = output.permissionDecision;
  if (decision === "allow" || decision === "deny" || decision === "ask") {
    const why = text(output.permissionDecisionReason);
    reply.permission = { decision, ...(why ? { reason: cap(why) } : {}) };
  } else if (decision !== undefined) {
    reply.notices.push(warning(`${name} printed permissionDecision ${JSON.stringify(decision)}; expected "allow", "deny" or "ask", so it is ignored.`));
  }
  const updated = output.updatedInput;
  if (typeof updated === "object" && updated !== null && !Array.isArray(updated)) reply.updatedInput = updated as Record<string, unknown>;
  return reply;
}

function defaultBlockReason(event: HookEventName, name: string): string {
  return event === "Stop" ? `${name} asked you to keep working before you finish.` : `${name} blocked this without saying why.`;
}

/** Stdout that is a JSON object; anything else (plain text, a number, broken JSON) is not a decision. */
function parseObject(stdout: string): Record<string, unknown> | undefined {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export function cap(value: string): string {
  return value.length <= MAX_HOOK_TEXT ? value : `${value.slice(0, MAX_HOOK_TEXT)}\n[... ${value.length - MAX_HOOK_TEXT} more characters from the hook cut]`;
}

function warning(message: string): HookNotice {
  return { level: "warning", message };
}

function firstLines(value: string): string {
  const lines = value.trim().split("\n").slice(0, 3).join(" / ");
  return lines.length > 300 ? `${lines.slice(0, 300)}…` : lines;
}

function quote(command: string): string {
  const short = command.length > 80 ? `${command.slice(0, 80)}…` : command;
  return `"${short}"`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
