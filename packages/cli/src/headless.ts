import { describeEstimate, type AgentEvent, type ImagePart, type PlanEstimate, type SessionRunner, type TaskResult } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { ProgressRenderer } from "./progress-renderer.js";
import { terminalText } from "./terminal-text.js";
import { exitCodes } from "./exit-codes.js";

export { exitCodes };

export function exitCodeFor(result: TaskResult): number {
  if (result.subtype === "success") return exitCodes.completed;
  if (result.subtype === "needs_input") return exitCodes.needsInput;
  return exitCodes.failed;
}

/**
 * One message to a task with nobody at the keyboard, and its session closed after: events to
 * stderr (or NDJSON to stdout), the final answer to stdout, Ctrl-C stops the run cleanly (a second
 * one quits at once). The runner decides the rest (wording, hand-offs, SessionEnd). What opening
 * each task has to say is printed on stderr as `cairn: …` lines (with --json, also events on stdout).
 */
export async function driveHeadless(
  runner: SessionRunner,
  message: string,
  images: readonly ImagePart[],
  json: boolean,
  io: Io,
  /** Instead of sending the one message (cairn replay sends a recording's messages in turn). */
  send: () => Promise<TaskResult> = () => runner.send(message, images),
): Promise<number> {
  const renderer = new ProgressRenderer(io.stderr);
  const printed = new Set<string>();
  const printNotices = () => {
    for (const notice of runner.session?.notices ?? []) {
      io.stderr(`cairn: ${notice}\n`);
      printed.add(notice);
    }
  };
  const lines = json ? ndjson(io) : undefined;
  const show = lines
    ? lines.write
    : (event: AgentEvent) => {
        if (event.type === "system" && event.subtype === "notice" && printed.delete(event.message)) return;
        if (event.type === "handoff") {
          // The model's own words: no escape sequence of theirs reaches the terminal (--json escapes them).
          io.stderr(terminalText(`Handing over to a fresh task with this context:\n${event.context}\n`));
        }
        renderer.render(event);
      };
  // A resumed task is open already; a fresh one (and each one handed over to) opens as it runs.
  printNotices();
  const unsubscribe = runner.subscribe((event) => {
    if (event.type === "session_opened") printNotices();
    show(event);
  });

  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    io.stderr("\nStopping… (press Ctrl-C again to quit at once)\n");
    runner.stop();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let result: TaskResult;
  try {
    result = await send();
  } finally {
    // SessionEnd hooks run after the run; their notices go out like the run's own events.
    await runner.close();
    unsubscribe();
    lines?.flush();
    renderer.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  if (!json) {
    const stdout = (text: string) => io.stdout(terminalText(text));
    const stderr = (text: string) => io.stderr(terminalText(text));
    if (result.subtype === "success") {
      stdout(`${result.result}\n`);
      if (result.command) stderr(`Suggested command to see the result: ${result.command}\n`);
    } else if (result.subtype === "needs_input") {
      const options = result.question?.options ?? [];
      stdout(`${result.result}\n${options.map((o) => `- ${o}\n`).join("")}`);
    }
    if (result.subtype !== "success" && runner.id) io.stderr(`Task ${runner.id}: continue it with cairn resume ${runner.id} ["message"]\n`);
  }
  // The cost is agreed before acting: said on stderr with --json too (the result carries it as plan_estimate).
  if (result.subtype === "needs_input" && result.plan_estimate && runner.id) io.stderr(estimateText(result.plan_estimate, runner.id));
  return exitCodeFor(result);
}

/** The plan's estimate, and how to approve the plan with the budget it suggests. */
function estimateText(estimate: PlanEstimate, id: string): string {
  const approve = estimate.budget_usd === null ? "" : `Approve it with that budget: cairn resume ${id} --mode act --max-budget-usd ${estimate.budget_usd.toFixed(2)}\n`;
  return `${describeEstimate(estimate)}\n  How: ${estimate.method}\n${approve}`;
}

/**
 * --json: one event a line. As Claude Code's stream-json, the output starts with system/init: the
 * session's opening events (session_opened, the person's message) come right after it.
 */
function ndjson(io: Io): { write: (event: AgentEvent) => void; flush: () => void } {
  let held: AgentEvent[] | undefined = [];
  const line = (event: AgentEvent) => io.stdout(`${JSON.stringify(event)}\n`);
  const flush = () => {
    for (const event of held ?? []) line(event);
    held = undefined;
  };
  return {
    write: (event) => {
      if (!held) return line(event);
      if (event.type !== "system" || event.subtype !== "init") return void held.push(event);
      line(event);
      flush();
    },
    // A run that ended before its init (it could not start) still shows what came before.
    flush,
  };
}
