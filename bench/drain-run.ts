import type { AgentEvent } from "../packages/core/src/events/index.js";
import type { TaskResult } from "../packages/core/src/runtime/task.js";

/** Hands each event of a run to `onEvent` until it ends; a run that ends other than in success fails the bench. */
export async function drainRun(run: AsyncGenerator<AgentEvent, TaskResult>, onEvent: (event: AgentEvent) => void): Promise<void> {
  for (;;) {
    const next = await run.next();
    if (next.done) {
      if (next.value.subtype !== "success") throw new Error(`bench task ended with ${next.value.subtype}: ${next.value.result}`);
      return;
    }
    onEvent(next.value);
  }
}
