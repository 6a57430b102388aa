/**
 * What the web host adds to a task's AgentEvents on its stream: facts about the task in this
 * server (opened, a message the person sent, running or idle) that no AgentEvent carries.
 */
export type WebEvent =
  | { type: "web_task"; title: string; cwd: string; model: string; provider: string; context_window: number | null; mode: "act" | "plan"; resumed: boolean }
  | { type: "web_user_message"; text: string }
  | { type: "web_run"; running: boolean }
  | { type: "web_answered"; tool_use_id: string; answer: string }
  | { type: "web_notice"; level: "info" | "warning"; message: string };
