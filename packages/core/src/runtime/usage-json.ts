import type { Usage } from "../model/types.js";
import type { UsageJson } from "../events/index.js";

export function usageJson(usage: Usage): UsageJson {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    ...(usage.reasoningTokens !== undefined ? { reasoning_output_tokens: usage.reasoningTokens } : {}),
    // Counted by Cairn from characters because the server reported no usage.
    ...(usage.estimated ? { estimated: true } : {}),
  };
}
