import type { Message } from "../model/types.js";
import type { CallOutcome, ParsedCall, ToolProtocol } from "../protocol/types.js";
import type { PendingResult } from "../storage/task-journal.js";
import type { AnyTool, ToolResult } from "../tools/tool.js";

const interrupted: ToolResult = {
  content: "[Interrupted: the task was stopped while this call was running or before it ran. Check its effect (read the file, list the folder) before trying again.]",
  isError: true,
};

/** The calls an assistant message made, as the protocol reads them. */
function callsOf(message: Extract<Message, { role: "assistant" }>, protocol: ToolProtocol, tools: readonly AnyTool[]): ParsedCall[] {
  const native = message.content.flatMap((p) => (p.type === "tool-call" ? [{ id: p.id, name: p.name, input: p.input }] : []));
  if (native.length > 0 || protocol.name === "native") return native;
  const parser = protocol.createParser(tools, "resumed");
  const text = message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
  const events = [...parser.push({ type: "text-delta", text }), ...parser.end()];
  return events.flatMap((e) => (e.type === "call" ? [e.call] : []));
}

function firstLine(result: ToolResult): string {
  const text = typeof result.content === "string" ? result.content : result.content.map((p) => (p.type === "text" ? p.text : "[image]")).join(" ");
  return (text.split("\n").find((l) => l.trim() !== "") ?? "").slice(0, 200);
}

/**
 * Makes a conversation cut by a crash valid again: the calls of a last assistant message get
 * their recorded results or an "interrupted" one (every tool call must have a result), and
 * results of a reply that was lost while streaming are told to the model as a note.
 */
export function repairInterrupted(messages: readonly Message[], pending: readonly PendingResult[], protocol: ToolProtocol, tools: readonly AnyTool[]): Message[] {
  const repaired = [...messages];
  const last = repaired[repaired.length - 1];
  if (last?.role === "assistant") {
    const calls = callsOf(last, protocol, tools);
    if (calls.length > 0) {
      const outcomes: CallOutcome[] = calls.map((call, i) => {
        const recorded = pending.find((p) => p.call.id === call.id) ?? (pending[i]?.call.name === call.name ? pending[i] : undefined);
        return { call, result: recorded?.result ?? interrupted };
      });
      repaired.push(protocol.resultsMessage(outcomes, []));
    }
    return repaired;
  }
  if (pending.length > 0) {
    const lines = pending.map((p) => `- ${p.call.name} ${JSON.stringify(p.call.input).slice(0, 200)} → ${firstLine(p.result)}`);
    repaired.push({
      role: "user",
      content: [{ type: "text", text: `[Your previous reply was lost when the task was interrupted, but these tool calls in it had already run:\n${lines.join("\n")}]` }],
    });
  }
  return repaired;
}

export type ResumeSituation = {
  /** The status the task was left in. */
  status: "running" | "completed" | "needs_input" | "failed" | "aborted";
  /** The process running it is gone (kill -9, power loss). */
  interrupted: boolean;
  /** It stopped on a plan awaiting approval, and the person resumes it in Act mode. */
  planApproved: boolean;
  /** What the person says on resuming, if anything. */
  message: string | undefined;
};

/** The user message that carries a task on from where it stopped. */
export function resumeText(situation: ResumeSituation): string {
  const { status, interrupted, planApproved, message } = situation;
  if (status === "needs_input" && planApproved) {
    return `[The user approved your plan. You are now in ACT mode: carry the plan out with the tools, and finish with attempt_completion.]${message ? `\n\n${message}` : ""}`;
  }
  if (status === "needs_input" && message) return `<answer>\n${message}\n</answer>`;
  if (status === "completed") return message ?? "[The user reopened the completed task. Check that the result still holds.]";
  const why = interrupted || status === "running" ? "was interrupted (the process stopped)" : status === "aborted" ? "was stopped by the user" : "stopped on an error";
  return `[The task ${why} and has now been resumed. Files may have changed since; check the state of any work in progress before continuing.]\n\n${message ?? "Continue the task."}`;
}
