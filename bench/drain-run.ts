import { drainRun as drain } from "../packages/core/src/session/drain.js";
import type { AgentEvent } from "../packages/core/src/events/index.js";
import type { TaskResult } from "../packages/core/src/runtime/task-options.js";

/** Core's drain (the one every run goes through), for benches of the Task alone; a run that ends other than in success fails the bench. */
export async function drainRun(run: AsyncGenerator<AgentEvent, TaskResult>, onEvent?: (event: AgentEvent) => void): Promise<void> {
  const result = await drain(run, onEvent);
  if (result.subtype !== "success") throw new Error(`bench task ended with ${result.subtype}: ${result.result}`);
}
