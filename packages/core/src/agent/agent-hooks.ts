import { composeHooks, type Hooks } from "../hooks/index.js";
import type { AgentHooks } from "./agent-types.js";

/** An agent's hook lists as the loop's one Hooks: each function one Hooks, composed in order (see composeHooks). */
export function loopHooks(hooks: Partial<AgentHooks>): Hooks {
  const { beforeModel = [], afterModel = [], beforeTool = [], afterTool = [], onEvent = [] } = hooks;
  return composeHooks([
    ...beforeModel.map((hook): Hooks => ({ beforeModel: hook })),
    ...afterModel.map((hook): Hooks => ({ afterModel: hook })),
    ...beforeTool.map((hook): Hooks => ({ beforeTool: (call) => hook(call) })),
    ...afterTool.map((hook): Hooks => ({ afterTool: (call, result) => hook(call, result) })),
    ...onEvent.map((hook): Hooks => ({ onEvent: hook })),
  ]);
}
