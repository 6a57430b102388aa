import { approvalCategory, autoApproval, type ApprovalSettings } from "../policy/approval.js";
import { checkCommand, classifyCommand, loadShellParser, type CommandPermissions, type CommandRisk } from "../policy/command/index.js";
import type { Terminal } from "../terminal/index.js";
import type { HookNotice, HookRunner, HookSession } from "../hooks/index.js";
import type { IgnoreRules } from "../policy/ignore-rules.js";
import { callSignature, narrationRefusal, type CallRecord } from "../policy/loop-detection.js";
import { resolveWorkspacePath } from "../policy/workspace.js";
import { toolResultText } from "../protocol/result-text.js";
import type { CallOutcome, ParsedCall } from "../protocol/types.js";
import { runTool, validateInput } from "../tools/run-tool.js";
import type { AnyTool, Mode, ToolResult } from "../tools/tool.js";
import type { AgentEvent } from "./events.js";
import type { Hooks } from "./hooks.js";
import type { Host } from "./host.js";

export type CallEnv = {
  tools: ReadonlyMap<string, AnyTool>;
  mode: Mode;
  cwd: string;
  ignore: IgnoreRules;
  scratchDir: string;
  modelSupportsImages: boolean;
  approval: ApprovalSettings;
  terminal: Terminal;
  /** allow/deny rules for commands (CAIRN_COMMAND_PERMISSIONS); checked even in yolo mode. */
  commandPermissions: CommandPermissions | undefined;
  /** Extra glob patterns of commands that always need approval (settings.json). */
  approvalRequiredCommands: readonly string[];
  /** Hook commands configured in settings (Claude Code's contract), and the session they describe. */
  hookRunner: HookRunner | undefined;
  hookSession: HookSession;
  /** Every call the task has made, for loop detection; executeCall appends to it. */
  history: CallRecord[];
  host: Host;
  hooks: Hooks;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
};

/** ok: ran and succeeded; error: invalid or failed (a mistake); denied: refused by the person or policy. */
export type Verdict = "ok" | "error" | "denied";

export type ExecutedCall = CallOutcome & {
  verdict: Verdict;
  /** A hook asked to end the run (continue: false), with its reason. */
  endRun?: string;
};

function summarize(tool: AnyTool | undefined, call: ParsedCall): string {
  try {
    return tool?.summarize?.(call.input) ?? call.name;
  } catch {
    return call.name;
  }
}

function finish(env: CallEnv, call: ParsedCall, result: ToolResult, verdict: Verdict): ExecutedCall {
  const status = verdict === "ok" ? "done" : verdict;
  env.history.push({
    name: call.name,
    signature: callSignature(call.name, call.input),
    ...(verdict === "ok" ? {} : { error: toolResultText(result) }),
  });
  env.emit({ type: "tool_result", tool_use_id: call.id, name: call.name, content: toolResultText(result), is_error: result.isError === true, status });
  return { call, result, verdict };
}

const fail = (env: CallEnv, call: ParsedCall, content: string) => finish(env, call, { content, isError: true }, "error");

async function decideApproval(
  env: CallEnv,
  tool: AnyTool,
  call: ParsedCall,
  summary: string,
  commandRisk: CommandRisk | undefined,
  hookDecision: "allow" | "ask" | undefined,
): Promise<{ approved: true } | { approved: false; content: string }> {
  if (hookDecision === "allow") {
    env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: true, by: "hook", reason: "allowed by a PreToolUse hook" });
    return { approved: true };
  }
  const category = approvalCategory(tool, call.input, env.cwd, commandRisk?.risk, [env.scratchDir]) ?? (hookDecision === "ask" ? "read" : undefined);
  if (!category) return { approved: true };
  const auto =
    hookDecision === "ask"
      ? undefined
      : tool.autoApproved?.(call.input)
        ? { approved: true as const, reason: "auto-approved by its server's configuration" }
        : autoApproval(category, env.approval);
  if (auto) {
    env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: true, by: "auto", reason: auto.reason });
    return { approved: true };
  }
  const why = commandRisk && commandRisk.reasons.length > 0 ? ` (${commandRisk.reasons.join("; ")})` : "";
  env.emit({ type: "approval_request", id: call.id, tool: call.name, category, summary: `${summary}${why}`, input: call.input });
  const notified = notify(env, `Cairn needs your approval: ${summary}`, "permission_prompt");
  if (!env.host.approve) {
    const reason = `needs approval (${category}) and nobody can approve it in this run`;
    env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: false, by: "policy", reason });
    return {
      approved: false,
      content: `The user denied this operation: ${call.name} ${reason}. Do not retry it; find another way or finish with what you can do.`,
    };
  }
  const response = await env.host.approve({ id: call.id, tool: call.name, category, summary, input: call.input }, env.signal);
  await notified;
  env.emit({
    type: "approval_decision",
    id: call.id,
    tool: call.name,
    approved: response.approved,
    by: "user",
    reason: response.approved ? "approved by the user" : "denied by the user",
    ...(response.feedback ? { feedback: response.feedback } : {}),
  });
  if (response.approved) return { approved: true };
  const feedback = response.feedback ? `\nThe user said: ${response.feedback}` : "";
  return { approved: false, content: `The user denied this operation.${feedback}` };
}

/**
 * One call's way through the loop: known tool, mode, valid input, hooks, approval, execution,
 * then the answer to a question. Never throws for the tool's sake; every outcome is a result.
 */
export async function executeCall(call: ParsedCall, env: CallEnv): Promise<ExecutedCall> {
  const tool = env.tools.get(call.name);
  const summary = summarize(tool, call);
  env.emit({ type: "tool_call", id: call.id, name: call.name, input: call.input, summary });

  if (!tool) {
    const names = [...env.tools.keys()].join(", ");
    return fail(env, call, `There is no tool named "${call.name}". Use one of: ${names}.`);
  }
  if (call.inputError) return fail(env, call, `${call.inputError} Call ${call.name} again with complete parameters.`);
  if (!tool.modes.includes(env.mode)) {
    const result = { content: `${call.name} is not available in ${env.mode.toUpperCase()} mode.`, isError: true };
    env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: false, by: "policy", reason: result.content });
    return finish(env, call, result, "denied");
  }
  const narration = narrationRefusal(env.history, call.name);
  if (narration) return finish(env, call, { content: narration, isError: true }, "denied");
  const valid = validateInput(tool, call.input);
  if (!valid.ok) return fail(env, call, valid.message);
  let input = valid.input;

  const blocked = blockedPath(env, tool, input);
  if (blocked) {
    const reason = `${blocked} is blocked by ${env.ignore.files.join(" / ") || ".cairnignore"}; the person has put it out of reach.`;
    env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: false, by: "policy", reason });
    return finish(env, call, { content: `${reason} Do not try to access it another way; work without it.`, isError: true }, "denied");
  }

  const hookVerdict = await env.hooks.beforeTool?.({ ...call, input });
  if (hookVerdict && "deny" in hookVerdict) {
    env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: false, by: "hook", reason: hookVerdict.deny });
    return finish(env, call, { content: `Blocked by a hook: ${hookVerdict.deny}`, isError: true }, "denied");
  }
  if (hookVerdict && "input" in hookVerdict) {
    const revalidated = validateInput(tool, hookVerdict.input);
    if (!revalidated.ok) return fail(env, call, revalidated.message);
    input = revalidated.input;
  }

  let hookDecision: "allow" | "ask" | undefined;
  const hookContext: string[] = [];
  let endRun: string | undefined;
  if (env.hookRunner?.has("PreToolUse", call.name)) {
    const pre = await env.hookRunner.preToolUse({ ...env.hookSession, toolName: call.name, toolInput: input, toolUseId: call.id }, env.signal);
    emitNotices(env, pre.notices);
    if (pre.decision === "deny") {
      const reason = pre.reason ?? "denied by a PreToolUse hook";
      env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: false, by: "hook", reason });
      const executed = finish(env, { ...call, input }, { content: `Blocked by a PreToolUse hook: ${reason}`, isError: true }, "denied");
      return pre.endRun ? { ...executed, endRun: pre.endRun } : executed;
    }
    if (pre.updatedInput) {
      const revalidated = validateInput(tool, pre.updatedInput);
      if (!revalidated.ok) return fail(env, call, revalidated.message);
      input = revalidated.input;
    }
    if (pre.decision === "allow" || pre.decision === "ask") hookDecision = pre.decision;
    if (pre.additionalContext) hookContext.push(pre.additionalContext);
    endRun = pre.endRun;
  }

  let commandRisk: CommandRisk | undefined;
  if (tool.kind === "command" && typeof input.command === "string") {
    const shell = await loadShellParser();
    if (env.commandPermissions) {
      const decision = checkCommand(input.command, env.commandPermissions, shell);
      if (!decision.allowed) {
        const reason = decision.segment ? `${decision.reason} (failing part: ${decision.segment})` : decision.reason;
        env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: false, by: "policy", reason });
        return finish(env, { ...call, input }, { content: `Command denied by the command rules: ${reason}`, isError: true }, "denied");
      }
    }
    commandRisk = classifyCommand(input.command, { cwd: env.cwd, extraPatterns: [...env.approvalRequiredCommands] }, shell);
  }

  // Whether the call reaches outside the workspace as it is approved: tools hold its paths to this
  // when they use them, so a link swapped while the approval is pending cannot carry them out.
  const reach = approvalCategory(tool, input, env.cwd, undefined, [env.scratchDir]);
  const approval = await decideApproval(env, tool, { ...call, input }, summary, commandRisk, hookDecision);
  if (!approval.approved) return finish(env, call, { content: approval.content, isError: true }, "denied");

  let result = await runTool(tool, input, {
    cwd: env.cwd,
    signal: env.signal,
    ignore: env.ignore,
    scratchDir: env.scratchDir,
    modelSupportsImages: env.modelSupportsImages,
    terminal: env.terminal,
    resolvePath: (path) => resolveWorkspacePath(env.cwd, path).absolute,
    outsideApproved: reach === "read-external" || reach === "edit-external",
    emitOutput: (text) => env.emit({ type: "tool_output", id: call.id, text }),
  });
  result = (await env.hooks.afterTool?.({ ...call, input }, result)) ?? result;
  if (env.hookRunner?.has("PostToolUse", call.name)) {
    const post = await env.hookRunner.postToolUse(
      { ...env.hookSession, toolName: call.name, toolInput: input, toolUseId: call.id, toolResponse: { content: toolResultText(result), isError: result.isError === true } },
      env.signal,
    );
    emitNotices(env, post.notices);
    if (post.additionalContext) hookContext.push(post.additionalContext);
    if (post.block) hookContext.push(`[PostToolUse hook: ${post.reason ?? "blocked"}]`);
    endRun ??= post.endRun;
  }
  if (hookContext.length > 0) result = withText(result, hookContext.join("\n"));

  if (result.control?.type === "ask") {
    const { question, options } = result.control;
    env.emit({ type: "question", id: call.id, question, options });
    const notified = notify(env, `Cairn asks: ${question}`, "question");
    const answer = await env.host.ask?.(question, options, env.signal);
    await notified;
    result = answer === undefined ? { ...result, content: "[Waiting for the user's answer.]" } : { content: `<answer>\n${answer}\n</answer>` };
  }
  const executed = finish(env, { ...call, input }, result, result.isError ? "error" : "ok");
  return endRun ? { ...executed, endRun } : executed;
}

function withText(result: ToolResult, text: string): ToolResult {
  if (typeof result.content === "string") return { ...result, content: `${result.content}\n\n${text}` };
  return { ...result, content: [...result.content, { type: "text", text }] };
}

function emitNotices(env: CallEnv, notices: readonly HookNotice[]): void {
  for (const n of notices) env.emit({ type: "system", subtype: "notice", level: n.level, message: n.message });
}

/** Tells Notification hooks the person is needed; the returned promise ends when they have run. */
function notify(env: CallEnv, message: string, notificationType: string): Promise<void> {
  if (!env.hookRunner?.has("Notification")) return Promise.resolve();
  return env.hookRunner.notification({ ...env.hookSession, message, notificationType }, env.signal).then((outcome) => emitNotices(env, outcome.notices));
}

/** The first path of the call that the workspace's ignore files block, if any. */
function blockedPath(env: CallEnv, tool: AnyTool, input: Record<string, unknown>): string | undefined {
  for (const access of tool.access?.(input) ?? []) {
    if (access.type === "none") continue;
    if (env.ignore.ignores(resolveWorkspacePath(env.cwd, access.path).absolute)) return access.path;
  }
  return undefined;
}

/** The result recorded for calls after a denial in the same message (Cline skips them too). */
export function skippedResult(env: CallEnv, call: ParsedCall, because: string): ExecutedCall {
  const result = { content: `Skipped: ${because}`, isError: true };
  env.emit({ type: "tool_call", id: call.id, name: call.name, input: call.input, summary: call.name });
  env.emit({ type: "tool_result", tool_use_id: call.id, name: call.name, content: result.content, is_error: true, status: "denied" });
  return { call, result, verdict: "denied" };
}
