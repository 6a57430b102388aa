/**
 * What the web host adds to a task's AgentEvents on its stream, where no AgentEvent fits: the
 * task was deleted from the store (pages drop it), and the size of its model's context window
 * (the status bar shows how full it is).
 */
export type WebEvent = { type: "web_deleted" } | { type: "web_context_window"; tokens: number | null };
