import { approvalCategory, type ApprovalSettings } from "../policy/approval.js";
import { classifyCommand, shellParserFor, type CommandPermissions, type ScriptBaseline } from "../policy/command/index.js";
import type { LanguageServers } from "../lsp/index.js";
import type { Terminal } from "../terminal/index.js";
import { asAfterVerdict } from "../hooks/index.js";
import type { SharedRules } from "./task-options.js";
import type { IgnoreRules } from "../policy/ignore-rules.js";
import { decideCall } from "../policy/decide-call.js";
import { callSignature, type CallRecord } from "../policy/loop-detection.js";
import { workspaceAbsolute } from "../policy/workspace.js";
import { argumentShapeProblem } from "../protocol/argument-shape.js";
import { toolResultText } from "../protocol/result-text.js";
import { gitTracksIgnored } from "./tracked-ignored.js";
import type { CallOutcome, ParsedCall } from "../protocol/types.js";
import { runTool, validateInput } from "../tools/run-tool.js";
import type { AnyTool, Mode, ToolResult } from "../tools/tool.js";
import type { AgentEvent, Decision, SandboxJson, ToolCallEnd } from "../events/index.js";
import type { BeforeToolVerdict } from "../hooks/index.js";
import type { CallFacts } from "../policy/call-facts.js";
import type { HostTexts, TextFiles } from "../tools/files/index.js";
import type { PreviewedFiles } from "../tools/edit/previewed-file.js";
import type { SubagentCapability, SubagentRunner } from "../tools/subagent-capability.js";
import { readPreviewTexts, runningPreview } from "./approval-preview.js";
import { approveCall } from "./approve-call.js";
import { accessesOf, gatherFacts } from "./gather-facts.js";
import { emitNotices } from "./task-hooks.js";
import type { Hooks } from "./hooks.js";
import type { Host } from "./host.js";

export type CallEnv = {
  tools: ReadonlyMap<string, AnyTool>;
  mode: Mode;
  cwd: string;
  ignore: IgnoreRules;
  scratchDir: string;
  /** Real folders outside the workspace whose reads need no approval: the listed skills' folders. */
  readRoots?: readonly string[] | undefined;
  /** CAIRN_HOME, whose config files are protected like the workspace's. */
  home?: string | undefined;
  modelSupportsImages: boolean;
  /** The host's own text files, handed to the tools (see ToolContext.files). */
  files?: TextFiles | undefined;
  /** For one call: the host's text of the files its edit changes, read before its approval for the preview (readPreviewTexts). */
  previewTexts?: HostTexts | undefined;
  approval: ApprovalSettings;
  /** The "always allow" rules in force (saved and this task's); "always allow" adds to it. */
  policyState: SharedRules;
  /** The task's OS sandbox as hosts show it, for a command's approval. */
  sandbox: SandboxJson;
  terminal: Terminal;
  /** allow/deny rules for commands (CAIRN_COMMAND_PERMISSIONS); checked even in yolo mode. */
  commandPermissions: CommandPermissions | undefined;
  /** Extra glob patterns of commands that always need approval (settings.json). */
  approvalRequiredCommands: readonly string[];
  /** The workspace's script files as the task began, so a command running changed scripts is asked again. */
  scripts?: ScriptBaseline | undefined;
  /** Every call the task has made, for loop detection; executeCall appends to it. */
  history: CallRecord[];
  host: Host;
  /** Every hook of the task as one (programmatic first, then the shell hooks of settings; see hooks/). */
  hooks: Hooks;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
  /** Sub-agents and the hand-off limit the session gave the task, lent to the tools that use them. */
  subagents?: SubagentRunner | undefined;
  handoffs?: { left: number; limit: number } | undefined;
  /** The task's language servers, lent to file tools (an edit's new errors, a read warms a server). */
  languageServers?: LanguageServers | undefined;
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

const statusOf: Record<Verdict, ToolCallEnd> = { ok: "completed", error: "failed", denied: "denied" };

function finish(env: CallEnv, call: ParsedCall, result: ToolResult, verdict: Verdict, decision?: Decision, end?: ToolCallEnd): ExecutedCall {
  env.history.push({
    name: call.name,
    signature: callSignature(call.name, call.input),
    ...(verdict === "ok" ? {} : { error: toolResultText(result) }),
  });
  env.emit({
    type: "tool_call_update",
    tool_use_id: call.id,
    name: call.name,
    status: end ?? statusOf[verdict],
    content: toolResultText(result),
    is_error: result.isError === true,
    ...(decision ? { decision } : {}),
  });
  return { call, result, verdict };
}

/** The session's sub-agents bound to this call: its events go under its tool_use_id, the task's abort stops them. */
function subagentsFor(env: CallEnv, toolUseId: string): SubagentCapability | undefined {
  const runner = env.subagents;
  if (!runner) return undefined;
  return { run: (prompts, agent) => runner.run({ prompts, ...(agent ? { agent } : {}), parentToolUseId: toolUseId, signal: env.signal, emit: env.emit }) };
}

const fail = (env: CallEnv, call: ParsedCall, content: string) => finish(env, call, { content, isError: true }, "error");

/** What policy reads of the PreToolUse hooks' verdict: a deny (with what the model reads), an allow or an ask. */
function hookFact(pre: BeforeToolVerdict | void | undefined): CallFacts["hook"] {
  if (pre?.deny !== undefined) return { deny: pre.deny, ...(pre.message !== undefined ? { message: pre.message } : {}) };
  return pre?.decision;
}

/**
 * One call's way through the loop: known tool, valid input, hooks, one decision (decideCall: every
 * refusal, or allow, or ask the person), execution, then the answer to a question. Never throws for
 * the tool's sake; every outcome is a result. Its life goes out as events: tool_call (pending), then
 * tool_call_update (awaiting_approval, running, and one end: completed, failed, denied or cancelled).
 */
export async function executeCall(call: ParsedCall, env: CallEnv): Promise<ExecutedCall> {
  const tool = env.tools.get(call.name);
  const summary = summarize(tool, call);
  const locations = accessesOf(tool, call.input).map((a) => workspaceAbsolute(env.cwd, a.path));
  env.emit({ type: "tool_call", tool_use_id: call.id, name: call.name, kind: tool?.kind ?? "unknown", input: call.input, summary, status: "pending", locations });

  if (!tool) {
    const names = [...env.tools.keys()].join(", ");
    return fail(env, call, `There is no tool named "${call.name}". Use one of: ${names}.`);
  }
  if (call.inputError) return fail(env, call, `${call.inputError} Call ${call.name} again with complete parameters.`);
  // Invalid input is still judged (a tool this mode does not offer is refused first), but only valid input reaches the hooks and the person.
  const valid = validateInput(tool, call.input);
  const asked = valid.ok ? valid.input : call.input;
  let input = asked;

  const pre = valid.ok ? await env.hooks.beforeTool?.({ ...call, input }, { signal: env.signal }) : undefined;
  emitNotices(env.emit, pre?.notices);
  if (pre?.input && pre.deny === undefined) {
    // A hook's JSON is held to the limits of the model's own arguments (see argument-shape.ts).
    const shape = argumentShapeProblem(call.name, pre.input);
    if (shape) return fail(env, call, `A hook rewrote these arguments, and the rewrite was refused: ${shape}`);
    const revalidated = validateInput(tool, pre.input);
    if (!revalidated.ok) return fail(env, call, revalidated.message);
    input = revalidated.input;
  }
  const hookContext = pre?.context ? [pre.context] : [];
  let endRun = pre?.endRun;

  const shell = tool.kind === "command" && typeof input.command === "string" ? await shellParserFor(input.command) : undefined;
  const commandRisk = shell
    ? classifyCommand(
        input.command as string,
        { cwd: env.cwd, extraPatterns: [...env.approvalRequiredCommands], gitTracksIgnored: () => gitTracksIgnored(env.cwd, env.ignore), ...(env.scripts ? { scripts: env.scripts } : {}) },
        shell,
      )
    : undefined;
  // A hook's rewrite is judged like the model's own input, and the model's input still is (`asked`).
  const facts = gatherFacts(env, tool, input, { commandRisk, shell, hook: hookFact(pre), ...(input !== asked ? { asked } : {}) });
  const decided = decideCall(facts, { ...env.approval, commands: env.commandPermissions }, env.policyState);
  if (decided.action === "deny") {
    const refused = finish(env, { ...call, input }, { content: decided.message, isError: true }, "denied", { approved: false, by: decided.by, reason: decided.reason });
    return endRun !== undefined ? { ...refused, endRun } : refused;
  }
  if (!valid.ok) return fail(env, call, valid.message);

  // Whether the call reaches outside the workspace as it is approved: tools hold its paths to this
  // when they use them, so a link swapped while the approval is pending cannot carry them out.
  const reach = tool.kind === "command" ? undefined : approvalCategory(facts);
  // An edit's diff starts from the file as the call will read it: the host's buffer, unsaved edits included.
  // What the preview read is noted, and the edit writes only over that: the file changed after the
  // person saw the diff is not written (changedSincePreview).
  const previewed: PreviewedFiles = new Map();
  const previewEnv = { ...env, previewTexts: await readPreviewTexts(tool, input, env), previewed };
  const approval = await approveCall(previewEnv, tool, { ...call, input }, summary, facts, decided, (message) => notify(env, message, "permission_prompt"));
  // Stopped while it waited for approval: it never runs, whatever answer came (a host may answer late), and is recorded as cancelled.
  if (env.signal.aborted) {
    return finish(env, { ...call, input }, { content: "Not run: the task was stopped before this call started.", isError: true }, "denied", { approved: false, by: "user", reason: "the task was stopped before it ran" }, "cancelled");
  }
  if ("refused" in approval) return finish(env, { ...call, input }, { content: approval.refused, isError: true }, "denied", approval.decision);
  // The person saw the changed scripts and said yes: the same scripts need not be asked about again.
  if (approval.asked && commandRisk?.changedScripts) env.scripts?.accept(commandRisk.changedScripts);
  // An edit that ran without asking still shows its diff: previewed here, once, before the file changes.
  const preview = approval.asked ? undefined : runningPreview(tool, input, previewEnv);
  env.emit({ type: "tool_call_update", tool_use_id: call.id, name: call.name, status: "running", ...(approval.decision ? { decision: approval.decision } : {}), ...(preview ? { preview } : {}) });

  let result = await runTool(tool, input, {
    cwd: env.cwd,
    signal: env.signal,
    ignore: env.ignore,
    scratchDir: env.scratchDir,
    readRoots: env.readRoots,
    modelSupportsImages: env.modelSupportsImages,
    files: env.files,
    previewed,
    terminal: env.terminal,
    resolvePath: (path) => workspaceAbsolute(env.cwd, path),
    outsideApproved: reach === "read-external" || reach === "edit-external",
    emitOutput: (text) => env.emit({ type: "tool_output", tool_use_id: call.id, text }),
    subagents: subagentsFor(env, call.id),
    handoffs: env.handoffs,
    checks: env.languageServers?.forCall({ toolUseId: call.id, emit: env.emit, signal: env.signal }),
  });
  const post = asAfterVerdict(await env.hooks.afterTool?.({ ...call, input }, result, { signal: env.signal }));
  emitNotices(env.emit, post?.notices);
  if (post?.result) result = post.result;
  if (post?.context) hookContext.push(post.context);
  endRun ??= post?.endRun;
  if (hookContext.length > 0) result = withText(result, hookContext.join("\n"));

  if (result.control?.type === "ask") {
    const { question, options } = result.control;
    env.emit({ type: "question", tool_use_id: call.id, question, options });
    const notified = notify(env, `Cairn asks: ${question}`, "question");
    const answer = await env.host.ask?.(question, options, env.signal);
    await notified;
    result = answer === undefined ? { ...result, content: "[Waiting for the user's answer.]" } : { content: `<answer>\n${answer}\n</answer>` };
  }
  // A call stopped by the person (abort) while it ran is cancelled, whatever its result says.
  const end: ToolCallEnd | undefined = env.signal.aborted ? "cancelled" : undefined;
  const executed = finish(env, { ...call, input }, result, result.isError ? "error" : "ok", approval.decision, end);
  return endRun ? { ...executed, endRun } : executed;
}

function withText(result: ToolResult, text: string): ToolResult {
  if (typeof result.content === "string") return { ...result, content: `${result.content}\n\n${text}` };
  return { ...result, content: [...result.content, { type: "text", text }] };
}

/** Tells Notification hooks the person is needed; the returned promise ends when they have run. */
function notify(env: CallEnv, message: string, notificationType: string): Promise<void> {
  const hook = env.hooks.notification;
  if (!hook) return Promise.resolve();
  return Promise.resolve(hook.call(env.hooks, message, notificationType, { signal: env.signal })).then((outcome) => emitNotices(env.emit, outcome?.notices));
}

/** The result recorded for calls after a denial in the same message (Cline skips them too): cancelled, never run. */
export function skippedResult(env: CallEnv, call: ParsedCall, because: string): ExecutedCall {
  const result = { content: `Skipped: ${because}`, isError: true };
  const tool = env.tools.get(call.name);
  env.emit({ type: "tool_call", tool_use_id: call.id, name: call.name, kind: tool?.kind ?? "unknown", input: call.input, summary: call.name, status: "pending", locations: [] });
  env.emit({ type: "tool_call_update", tool_use_id: call.id, name: call.name, status: "cancelled", content: result.content, is_error: true });
  return { call, result, verdict: "denied" };
}
