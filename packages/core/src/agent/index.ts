export { createAgent } from "./create-agent.js";
export type { Agent, AgentConfig, AgentHooks, AgentSnapshot, AgentStatus, PendingToolCall, RunInput, AgentRunResult } from "./agent-types.js";
