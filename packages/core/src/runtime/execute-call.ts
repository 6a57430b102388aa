import { approvalCategory, autoApproval, hookMayAllow, type ApprovalSettings } from "../policy/approval.js";
import { checkCommand, classifyCommand, loadShellParser, type CommandPermissions, type CommandRisk } from "../policy/command/index.js";
import type { Terminal } from "../terminal/index.js";
import type { HookNotice, HookRunner, HookSession } from "../hooks/index.js";
import type { IgnoreRules } from "../policy/ignore-rules.js";
import { callSignature, narrationRefusal, type CallRecord } from "../policy/loop-detection.js";
import { protectedPath, type ProtectedHit } from "../policy/protected-paths.js";
import { resolveWorkspacePath } from "../policy/workspace.js";
import { toolResultText } from "../protocol/result-text.js";
import { gitTracksIgnored } from "./tracked-ignored.js";
import type { CallOutcome, ParsedCall } from "../protocol/types.js";
import { runTool, validateInput } from "../tools/run-tool.js";
import type { AnyTool, Mode, ToolResult } from "../tools/tool.js";
import type { AgentEvent, ApprovalCategory } from "./events.js";
import type { Hooks } from "./hooks.js";
import type { Host } from "./host.js";

export type CallEnv = {
  tools: ReadonlyMap<string, AnyTool>;
  mode: Mode;
  cwd: string;
  ignore: IgnoreRules;
  scratchDir: string;
  /** CAIRN_HOME, whose config files are protected like the workspace's. */
  home?: string | undefined;
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
  const category = approvalCategory(tool, call.input, env.cwd, commandRisk?.risk, [env.scratchDir]) ?? (hookDecision === "ask" ? "read" : undefined);
  // A protected file is the person's alone: nothing below (hook, yolo, auto-approve) may answer for them.
  const guarded = protectedEdit(env, tool, call.input);
  if (guarded) return askPerson(env, call, category ?? "edit", summary, guarded);
  if (!category) return { approved: true };
  if (hookDecision === "allow" && hookMayAllow(category)) {
    env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: true, by: "hook", reason: "allowed by a PreToolUse hook" });
    return { approved: true };
  }
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
  return askPerson(env, call, category, `${summary}${why}`, undefined);
}

/** Asks the host (the person) about one call; without a host that can ask, the call is denied. */
async function askPerson(
  env: CallEnv,
  call: ParsedCall,
  category: ApprovalCategory,
  summary: string,
  guarded: ProtectedHit | undefined,
): Promise<{ approved: true } | { approved: false; content: string }> {
  const shown = guarded ? `${summary} (protected file ${guarded.path}: ${guarded.reason}; only you can allow this)` : summary;
  env.emit({ type: "approval_request", id: call.id, tool: call.name, category, summary: shown, input: call.input });
  const notified = notify(env, `Cairn needs your approval: ${shown}`, "permission_prompt");
  if (!env.host.approve) {
    if (guarded) {
      const reason = `${guarded.path} is a protected file (${guarded.reason}); only the person can approve changing it, and nobody can approve in this run`;
      env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: false, by: "policy", reason });
      return {
        approved: false,
        content: `${call.name} was denied: ${reason}. Do not try to change it another way (a command, a link, another tool); finish without it and tell the user what should change there and why.`,
      };
    }
    const reason = `needs approval (${category}) and nobody can approve it in this run`;
    env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: false, by: "policy", reason });
    return {
      approved: false,
      content: `The user denied this operation: ${call.name} ${reason}. Do not retry it; find another way or finish with what you can do.`,
    };
  }
  const request = { id: call.id, tool: call.name, category, summary: shown, input: call.input, ...(guarded ? { protected: guarded } : {}) };
  const response = await env.host.approve(request, env.signal);
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

  const blocked = denyIgnored(env, tool, call, input);
  if (blocked) return blocked;

  const hookVerdict = await env.hooks.beforeTool?.({ ...call, input });
  if (hookVerdict && "deny" in hookVerdict) {
    env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: false, by: "hook", reason: hookVerdict.deny });
    return finish(env, call, { content: `Blocked by a hook: ${hookVerdict.deny}`, isError: true }, "denied");
  }
  if (hookVerdict && "input" in hookVerdict) {
    const revalidated = validateInput(tool, hookVerdict.input);
    if (!revalidated.ok) return fail(env, call, revalidated.message);
    input = revalidated.input;
    const rewritten = denyIgnored(env, tool, call, input);
    if (rewritten) return rewritten;
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
      // A hook's rewrite is checked like the model's own input.
      const rewritten = denyIgnored(env, tool, call, input);
      if (rewritten) return rewritten;
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
    commandRisk = classifyCommand(input.command, { cwd: env.cwd, extraPatterns: [...env.approvalRequiredCommands], gitTracksIgnored: gitTracksIgnored(env.cwd, env.ignore) }, shell);
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

/** The denial of a call that touches a path the ignore files block, or undefined. */
function denyIgnored(env: CallEnv, tool: AnyTool, call: ParsedCall, input: Record<string, unknown>): ExecutedCall | undefined {
  const blocked = blockedPath(env, tool, input);
  if (!blocked) return undefined;
  const reason = `${blocked} is blocked by ${env.ignore.files.join(" / ") || ".cairnignore"}; the person has put it out of reach.`;
  env.emit({ type: "approval_decision", id: call.id, tool: call.name, approved: false, by: "policy", reason });
  return finish(env, { ...call, input }, { content: `${reason} Do not try to access it another way; work without it.`, isError: true }, "denied");
}

/** The first protected file (see policy/protected-paths.ts) the call would change, if any. */
function protectedEdit(env: CallEnv, tool: AnyTool, input: Record<string, unknown>): ProtectedHit | undefined {
  for (const access of tool.access?.(input) ?? []) {
    if (access.type !== "edit") continue;
    // The path as the tool will use it (`~` expanded), then judged on what it really is.
    const target = resolveWorkspacePath(env.cwd, access.path).absolute;
    const hit = protectedPath(target, { cwd: env.cwd, ...(env.home ? { home: env.home } : {}) });
    if (hit) return hit;
  }
  return undefined;
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
