import type { AgentEvent } from "../events/index.js";
import type { HookNotice, Hooks } from "../hooks/index.js";

type Emit = (event: AgentEvent) => void;

/**
 * Where the task's run meets its hooks (one Hooks, see hooks/compose-hooks.ts): session start once
 * per Task, the prompt, stop, compaction and session end, each turning the hooks' notices into
 * events. The loop asks yes/no questions of it and never builds hook input.
 */
export class TaskHooks {
  /** SessionStart hooks ran for this Task object. */
  private sessionStarted = false;

  constructor(
    readonly hooks: Hooks,
    private readonly resumed: boolean,
  ) {}

  /** Session start (once) and prompt hooks: context to add, or the reason the prompt is blocked. */
  async onPrompt(text: string, emit: Emit, signal: AbortSignal): Promise<{ blocked?: string; context: string[] }> {
    const context: string[] = [];
    if (!this.sessionStarted) {
      this.sessionStarted = true;
      const start = await this.hooks.sessionStart?.(this.resumed ? "resume" : "startup", { signal });
      emitNotices(emit, start?.notices);
      if (start?.context) context.push(start.context);
    }
    const submit = await this.hooks.onPrompt?.(text, { signal });
    emitNotices(emit, submit?.notices);
    if (submit?.block !== undefined) return { blocked: submit.block, context };
    if (submit?.context) context.push(submit.context);
    return { context };
  }

  /** Stop hooks when the model would finish: why it may not yet, or undefined. `continuations`: times they have kept it going this run. */
  async stopBlocked(continuations: number, emit: Emit, signal: AbortSignal): Promise<string | undefined> {
    const stop = await this.hooks.onStop?.(continuations, { signal });
    emitNotices(emit, stop?.notices);
    return stop?.block;
  }

  /** Hooks before compaction, for context fitting to run before it summarises; undefined when none is set. */
  beforeCompact(trigger: "manual" | "auto", emit: Emit, signal: AbortSignal): (() => Promise<void>) | undefined {
    const hooks = this.hooks;
    if (!hooks.beforeCompact) return undefined;
    return async () => {
      const outcome = await hooks.beforeCompact?.(trigger, { signal });
      emitNotices(emit, outcome?.notices);
    };
  }

  /** Session end hooks, their notices as events. */
  async sessionEnd(reason: string, emit: Emit, signal: AbortSignal): Promise<void> {
    const outcome = await this.hooks.sessionEnd?.(reason, { signal });
    emitNotices(emit, outcome?.notices);
  }
}

/** Hooks' notices for the person, as events. */
export function emitNotices(emit: Emit, notices: readonly HookNotice[] | undefined): void {
  for (const n of notices ?? []) emit({ type: "system", subtype: "notice", level: n.level, message: n.message });
}
