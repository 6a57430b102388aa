import type { AgentEvent, Task, TaskResult } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { ProgressRenderer } from "./progress-renderer.js";
import { terminalText } from "./terminal-text.js";

export const exitCodes = { completed: 0, failed: 1, usage: 2, needsInput: 3 } as const;

export function exitCodeFor(result: TaskResult): number {
  if (result.subtype === "success") return exitCodes.completed;
  if (result.subtype === "needs_input") return exitCodes.needsInput;
  return exitCodes.failed;
}

/**
 * Drives one run of a task with nobody at the keyboard: events to stderr (or NDJSON to stdout),
 * the final answer to stdout, Ctrl-C stops the run cleanly (a second one quits at once).
 */
export async function driveHeadless(
  task: Task,
  run: AsyncGenerator<AgentEvent, TaskResult>,
  json: boolean,
  io: Io,
  /** Notices already printed as `cairn: …` lines before the run; their events are not shown a second time. */
  printedNotices: readonly string[] = [],
): Promise<{ code: number; result: TaskResult }> {
  const renderer = new ProgressRenderer(io.stderr);
  const unshown = new Set(printedNotices);
  const emit = json
    ? (event: AgentEvent) => io.stdout(`${JSON.stringify(event)}\n`)
    : (event: AgentEvent) => {
        if (event.type === "system" && event.subtype === "notice" && unshown.delete(event.message)) return;
        renderer.render(event);
      };

  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    io.stderr("\nStopping… (press Ctrl-C again to quit at once)\n");
    task.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    let next = await run.next();
    while (!next.done) {
      emit(next.value);
      next = await run.next();
    }
    const result = next.value;
    // SessionEnd hooks run after the run; their notices go out like the run's own events.
    for (const event of await task.endSession("other")) emit(event);
    if (!json) {
      // The model's own words: no escape sequence of theirs reaches the terminal (--json escapes them).
      const stdout = (text: string) => io.stdout(terminalText(text));
      const stderr = (text: string) => io.stderr(terminalText(text));
      if (result.new_task) {
        stderr("Handing over to a fresh task with this context:\n");
        stderr(`${result.new_task}\n`);
      } else if (result.subtype === "success") {
        stdout(`${result.result}\n`);
        if (result.command) stderr(`Suggested command to see the result: ${result.command}\n`);
      } else if (result.subtype === "needs_input") {
        const options = result.question?.options ?? [];
        stdout(`${result.result}\n${options.map((o) => `- ${o}\n`).join("")}`);
      }
      if (result.subtype !== "success") io.stderr(`Task ${task.sessionId}: continue it with cairn resume ${task.sessionId} ["message"]\n`);
    }
    return { code: exitCodeFor(result), result };
  } finally {
    renderer.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
