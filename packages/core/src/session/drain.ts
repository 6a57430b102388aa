import type { AgentEvent } from "../events/index.js";
import type { TaskResult } from "../runtime/task-options.js";

/**
 * Pulls a run to its result, handing each event to `onEvent` as it comes: the one loop that drives
 * a task's run (the session runner's, a sub-agent's, a program's). Hosts that render subscribe to
 * the task rather than read the run.
 */
export async function drainRun(run: AsyncGenerator<AgentEvent, TaskResult>, onEvent?: (event: AgentEvent) => void): Promise<TaskResult> {
  let next = await run.next();
  while (!next.done) {
    onEvent?.(next.value);
    next = await run.next();
  }
  return next.value;
}
