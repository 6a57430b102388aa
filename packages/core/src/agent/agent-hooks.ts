import type { Hooks } from "../runtime/hooks.js";
import type { AgentHooks } from "./agent-types.js";

/** The loop's one hook of each kind, running an agent's lists in order. */
export function loopHooks(hooks: Partial<AgentHooks>): Hooks {
  const { beforeModel = [], afterModel = [], beforeTool = [], afterTool = [], onEvent = [] } = hooks;
  return {
    ...(beforeModel.length > 0
      ? {
          beforeModel: async (request) => {
            let current = request;
            for (const hook of beforeModel) current = (await hook(current)) ?? current;
            return current;
          },
        }
      : {}),
    ...(afterModel.length > 0
      ? {
          afterModel: async (message) => {
            for (const hook of afterModel) await hook(message);
          },
        }
      : {}),
    ...(beforeTool.length > 0
      ? {
          beforeTool: async (call) => {
            let input: Record<string, unknown> | undefined;
            for (const hook of beforeTool) {
              const verdict = await hook(input ? { ...call, input } : call);
              if (verdict && "deny" in verdict) return verdict;
              if (verdict && "input" in verdict) input = verdict.input;
            }
            return input ? { input } : undefined;
          },
        }
      : {}),
    ...(afterTool.length > 0
      ? {
          afterTool: async (call, result) => {
            let current = result;
            for (const hook of afterTool) current = (await hook(call, current)) ?? current;
            return current;
          },
        }
      : {}),
    ...(onEvent.length > 0
      ? {
          onEvent: (event) => {
            for (const hook of onEvent) hook(event);
          },
        }
      : {}),
  };
}
