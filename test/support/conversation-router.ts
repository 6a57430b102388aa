import type { RecordedRequest, ScriptedResponder, ScriptedTurn } from "./scripted-model-server.js";

/** The text of a request's first user message (Anthropic or OpenAI wire). */
export function firstMessageText(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const first = messages.find((m) => m.role === "user");
  if (!first) return "";
  if (typeof first.content === "string") return first.content;
  return (first.content as Array<{ type: string; text?: string }>).map((p) => p.text ?? "").join("\n");
}

/**
 * A responder for several conversations at once (a task, the task it hands over to, sub-agents
 * running side by side): each conversation is told apart by a key its first message contains,
 * and gets its own scripted turns in order. A request no key matches fails the test's run loudly.
 */
export function conversationRouter(routes: Record<string, ScriptedTurn[]>): { responder: ScriptedResponder; served: Array<{ key: string; index: number }> } {
  const queues = new Map(Object.entries(routes).map(([key, turns]) => [key, [...turns]]));
  const served: Array<{ key: string; index: number }> = [];
  const responder: ScriptedResponder = (request, index) => {
    const text = firstMessageText(request);
    const key = [...queues.keys()].find((k) => text.includes(k));
    if (key === undefined) return { fault: { status: 500, message: `no scripted conversation for a first message of: ${text.slice(0, 80)}` } };
    served.push({ key, index });
    return queues.get(key)!.shift() ?? { fault: { status: 500, message: `conversation "${key}" has no turn left` } };
  };
  return { responder, served };
}
