/** What the web host adds to a task's AgentEvents on its stream, where no AgentEvent fits: the task was deleted from the store (pages drop it). */
export type WebEvent = { type: "web_deleted" };
