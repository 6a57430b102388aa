import type { Decision } from "../events/index.js";
import { guardedAccess, type CallFacts } from "../policy/call-facts.js";
import { commandReasons, type ActiveRule, type CallDecision } from "../policy/decide-call.js";
import { parsePermissionRule, suggestedRule, type RuleScope } from "../policy/permission-rules.js";
import type { ParsedCall } from "../protocol/types.js";
import { addPermissionRule } from "../storage/permission-store.js";
import type { AnyTool } from "../tools/tool.js";
import { approvalPreview } from "./approval-preview.js";
import type { CallEnv } from "./execute-call.js";

/**
 * The call may run (with the decision, when one was needed; `asked`: the person was asked, with the
 * call's preview, so it need not be computed again), or it is refused: what the model reads, and who refused.
 */
export type Approval = { decision?: Decision; asked?: true } | { refused: string; decision: Decision };

/** What policy said of a call it did not refuse (executeCall acts on refusals itself). */
type NotRefused = Exclude<CallDecision, { action: "deny" }>;

/**
 * Whether one call may run, once policy has decided (decideCall): allowed, or the host asks the
 * person, showing what the call would do (its preview) and the rule "always allow" would add.
 * Without a host that can ask, the call is refused. `notify` tells Notification hooks the person is needed.
 */
export async function approveCall(env: CallEnv, tool: AnyTool, call: ParsedCall, summary: string, facts: CallFacts, decided: NotRefused, notify: (message: string) => Promise<void>): Promise<Approval> {
  if (decided.action === "allow") {
    if (!decided.category) return {};
    return { decision: { approved: true, by: decided.by, reason: decided.reason, ...(decided.rule ? { rule: decided.rule } : {}) } };
  }
  return askPerson(env, tool, call, summary, facts, decided, notify);
}

async function askPerson(env: CallEnv, tool: AnyTool, call: ParsedCall, summary: string, facts: CallFacts, decided: NotRefused, notify: (message: string) => Promise<void>): Promise<Approval> {
  const category = decided.category ?? "edit";
  const guarded = decided.protected;
  const shown = guarded ? `${summary} (protected file ${guarded.path}: ${guarded.reason}; only you can allow this)` : `${summary}${commandReasons(facts)}`;
  const preview = approvalPreview(tool, facts, env);
  const rule = guarded ? undefined : ruleFor(facts);
  const approval = { category, summary: shown, ...(preview ? { preview } : {}), ...(guarded ? { protected: guarded } : {}), ...(rule ? { suggested_rule: rule } : {}) };
  env.emit({ type: "tool_call_update", tool_use_id: call.id, name: call.name, status: "awaiting_approval", approval });
  const notified = notify(`Cairn needs your approval: ${shown}`);
  if (!env.host.approve) {
    if (guarded) {
      const access = guardedAccess(facts);
      const reason = `${guarded.path} is a protected file (${guarded.reason}); only the person can approve ${access} it, and nobody can approve in this run`;
      const instead = access === "changing" ? "change it another way (a command, a link, another tool); finish without it and tell the user what should change there and why" : "read it another way (a command, a link, another tool); finish without it";
      return {
        refused: `${call.name} was denied: ${reason}. Do not try to ${instead}.`,
        decision: { approved: false, by: "policy", reason },
      };
    }
    const reason = `needs approval (${category}) and nobody can approve it in this run`;
    return {
      refused: `Not run: ${call.name} ${reason} (nobody was asked). Do not retry it; find another way, or finish with what you can do and say what needed approval.`,
      decision: { approved: false, by: "policy", reason },
    };
  }
  const response = await env.host.approve({ tool_use_id: call.id, tool: call.name, input: call.input, ...approval }, env.signal);
  await notified;
  const feedback = response.feedback ? { feedback: response.feedback } : {};
  if (!response.approved) {
    const said = response.feedback ? `\nThe user said: ${response.feedback}` : "";
    return { refused: `The user denied this operation.${said}`, decision: { approved: false, by: "user", reason: "denied by the user", ...feedback } };
  }
  if (response.remember && rule) remember(env, rule, response.remember);
  return { decision: { approved: true, by: "user", reason: "approved by the user", ...feedback }, asked: true };
}

/** The suggestion is a courtesy: a call whose facts it cannot read simply gets none. */
function ruleFor(facts: CallFacts): string | undefined {
  try {
    return suggestedRule(facts);
  } catch {
    return undefined;
  }
}

/**
 * "Always allow": the rule holds for the rest of the task, and is saved for a workspace or user
 * scope; a task-scope rule (or one that could not be saved) is kept with the task, so resuming the
 * task does not ask again.
 */
function remember(env: CallEnv, text: string, scope: RuleScope): void {
  const parsed = parsePermissionRule(text);
  if (!parsed.ok) return;
  const rule = { ...parsed.rule, scope };
  if (!env.policyState.rules.some((r) => r.text === rule.text)) env.policyState.rules.push(rule);
  if (scope === "task" || !env.home) return keepWithTask(env, rule);
  try {
    addPermissionRule(env.home, env.cwd, scope, parsed.rule.text);
  } catch (error) {
    env.emit({ type: "system", subtype: "notice", level: "warning", message: `The rule ${parsed.rule.text} holds for this task only: it could not be saved (${(error as Error).message.split("\n")[0]}).` });
    keepWithTask(env, rule);
  }
}

function keepWithTask(env: CallEnv, rule: ActiveRule): void {
  try {
    env.policyState.keep?.(rule);
  } catch (error) {
    env.emit({ type: "system", subtype: "notice", level: "warning", message: `The rule ${rule.text} holds until this run ends: it could not be kept with the task (${(error as Error).message.split("\n")[0]}), so resuming it will ask again.` });
  }
}
