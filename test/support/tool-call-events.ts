/** Readers of the tool-call lifecycle in `cairn run --json` output, for e2e assertions. */
type Event = Record<string, unknown> & { type: string };

export type EndedCall = Event & { tool_use_id: string; name: string; status: "completed" | "failed" | "denied" | "cancelled"; content: string; is_error: boolean };
export type ApprovalAsked = { tool_use_id: string; tool: string; category: string; summary: string; preview?: Record<string, unknown>; suggested_rule?: string; protected?: unknown };
export type DecisionMade = { tool_use_id: string; tool: string; approved: boolean; by: string; reason: string; feedback?: string; rule?: string };

/** Every call's end (completed, failed, denied, cancelled), in order. */
export function endedCalls(events: readonly Event[]): EndedCall[] {
  return events.filter((e): e is EndedCall => e.type === "tool_call_update" && "content" in e);
}

/** Every approval a call waited for, in order. */
export function approvalsAsked(events: readonly Event[]): ApprovalAsked[] {
  return events
    .filter((e) => e.type === "tool_call_update" && e.status === "awaiting_approval")
    .map((e) => ({ tool_use_id: String(e.tool_use_id), tool: String(e.name), ...(e.approval as Omit<ApprovalAsked, "tool_use_id" | "tool">) }));
}

/** Every decision that let a call run or refused it, in order (each once: on running or denied). */
export function decisionsMade(events: readonly Event[]): DecisionMade[] {
  return events
    .filter((e) => e.type === "tool_call_update" && (e.status === "running" || e.status === "denied") && e.decision !== undefined)
    .map((e) => ({ tool_use_id: String(e.tool_use_id), tool: String(e.name), ...(e.decision as Omit<DecisionMade, "tool_use_id" | "tool">) }));
}

/**
 * The id Cairn gave the first `name` call whose input has these values. Cairn names every call
 * itself; an id a scripted turn gives a call is only the provider's, never seen in the events.
 */
export function callIdOf(events: readonly Event[], name: string, input: Record<string, unknown> = {}): string {
  const call = events.find(
    (e) => e.type === "tool_call" && e.name === name && Object.entries(input).every(([key, value]) => JSON.stringify((e.input as Record<string, unknown>)[key]) === JSON.stringify(value)),
  );
  if (!call) throw new Error(`No ${name} call with ${JSON.stringify(input)} in the events.`);
  return String(call.tool_use_id);
}
