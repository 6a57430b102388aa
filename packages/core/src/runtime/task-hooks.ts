import type { AgentEvent } from "../events/index.js";
import { permissionMode, type HookNotice, type HookRunner, type HookSession } from "../hooks/index.js";
import type { Mode } from "../tools/tool.js";

type Emit = (event: AgentEvent) => void;

/**
 * Where the loop meets the shell hooks of settings (hooks/): who the session is as hooks see it,
 * SessionStart once per Task, UserPromptSubmit, Stop, PreCompact and SessionEnd, each turning the
 * hook's notices into events. The loop asks yes/no questions of it and never builds hook input.
 */
export class TaskHooks {
  /** SessionStart hooks ran for this Task object. */
  private sessionStarted = false;

  constructor(
    readonly runner: HookRunner | undefined,
    private readonly who: { sessionId: string; cwd: string; yolo: boolean; transcriptPath: string | undefined; mode: () => Mode; resumed: boolean },
  ) {}

  session(): HookSession {
    return {
      sessionId: this.who.sessionId,
      cwd: this.who.cwd,
      permissionMode: permissionMode({ mode: this.who.mode(), yolo: this.who.yolo }),
      ...(this.who.transcriptPath ? { transcriptPath: this.who.transcriptPath } : {}),
    };
  }

  /** SessionStart (once) and UserPromptSubmit hooks: context to add, or the reason the prompt is blocked. */
  async onPrompt(text: string, emit: Emit, signal: AbortSignal): Promise<{ blocked?: string; context: string[] }> {
    const runner = this.runner;
    const context: string[] = [];
    if (!runner) return { context };
    if (!this.sessionStarted) {
      this.sessionStarted = true;
      if (runner.has("SessionStart", this.who.resumed ? "resume" : "startup")) {
        const start = await runner.sessionStart({ ...this.session(), source: this.who.resumed ? "resume" : "startup" }, signal);
        emitNotices(emit, start.notices);
        if (start.additionalContext) context.push(start.additionalContext);
      }
    }
    if (runner.has("UserPromptSubmit")) {
      const submit = await runner.userPromptSubmit({ ...this.session(), prompt: text }, signal);
      emitNotices(emit, submit.notices);
      if (submit.block || submit.endRun) return { blocked: submit.reason ?? submit.endRun ?? "blocked", context };
      if (submit.additionalContext) context.push(submit.additionalContext);
    }
    return { context };
  }

  /** Stop hooks when the model would finish: why it may not yet, or undefined. `continuations`: times they have kept it going this run. */
  async stopBlocked(continuations: number, emit: Emit, signal: AbortSignal): Promise<string | undefined> {
    const runner = this.runner;
    if (!runner?.has("Stop")) return undefined;
    const stop = await runner.stop({ ...this.session(), continuations }, signal);
    emitNotices(emit, stop.notices);
    if (!stop.block) return undefined;
    return stop.reason ?? "a Stop hook wants more work";
  }

  /** PreCompact hooks, for context fitting to run before it summarises; undefined when none is configured. */
  beforeCompact(trigger: "manual" | "auto", emit: Emit, signal: AbortSignal): (() => Promise<void>) | undefined {
    const runner = this.runner;
    if (!runner?.has("PreCompact", trigger)) return undefined;
    return async () => {
      const outcome = await runner.preCompact({ ...this.session(), trigger }, signal);
      emitNotices(emit, outcome.notices);
    };
  }

  /** SessionEnd hooks: their notices (none when no hook is configured). */
  async sessionEnd(reason: string, signal: AbortSignal): Promise<readonly HookNotice[]> {
    const runner = this.runner;
    if (!runner?.has("SessionEnd")) return [];
    const outcome = await runner.sessionEnd({ ...this.session(), reason }, signal);
    return outcome.notices;
  }
}

function emitNotices(emit: Emit, notices: readonly HookNotice[]): void {
  for (const n of notices) emit({ type: "system", subtype: "notice", level: n.level, message: n.message });
}
