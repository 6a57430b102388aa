import type { ConfiguredHook } from "./config.js";
import {
  hookPayload,
  matchTarget,
  type HookEventName,
  type HookInputs,
  type NotificationInput,
  type PostToolUseInput,
  type PreCompactInput,
  type PreToolUseInput,
  type SessionEndInput,
  type SessionStartInput,
  type StopInput,
  type UserPromptSubmitInput,
} from "./events.js";
import type { CommandSandbox } from "../sandbox/index.js";
import { readReply, type HookNotice, type HookReply } from "./hook-output.js";
import { runHook } from "./run-hook.js";

export type HookOutcome = {
  /** Non-blocking errors, timeouts, systemMessages: for the host, never the model. */
  notices: HookNotice[];
  /** A hook printed `continue: false`: end the run, showing this reason. */
  endRun?: string;
};

export type PreToolUseOutcome = HookOutcome & {
  /** deny wins over ask, ask over allow; undefined when no hook decided. */
  decision?: "allow" | "deny" | "ask";
  /** For deny, what the model is told; for allow/ask, what the person is told. */
  reason?: string;
  /** For the model, after the tool's result. */
  additionalContext?: string;
  /** A hook rewrote the call's input (validate it again before running the tool). */
  updatedInput?: Record<string, unknown>;
};

export type BlockOutcome = HookOutcome & {
  /** PostToolUse: show `reason` to the model. UserPromptSubmit: drop the prompt and end the run. Stop: keep going, `reason` says why. */
  block: boolean;
  reason?: string;
  additionalContext?: string;
};

export type ContextOutcome = HookOutcome & { additionalContext?: string };

export type HookRunnerOptions = {
  /** When a hook has no `timeout` of its own (default 60 s). */
  defaultTimeoutMs?: number;
  /** After a timeout or abort: SIGTERM to the hook's group, SIGKILL after this long (default 1 s). */
  killGraceMs?: number;
  /** Stop hooks may keep a run going this many times in a row (default 3); past it the run ends anyway. */
  maxStopContinuations?: number;
  /** The environment hooks start from (default: process.env; Cairn's provider keys are always removed). */
  env?: NodeJS.ProcessEnv;
  /**
   * The task's command sandbox: the workspace's hooks run in it (the person's own hooks do not).
   * Undefined with --sandbox off: then workspace hooks run on the host as the person's do.
   */
  sandbox?: CommandSandbox;
};

/**
 * Runs the configured hooks of an event: the matching ones in parallel (identical commands once),
 * each fed the event as JSON, and merges their replies into one plain decision. Never throws;
 * a broken hook is a notice.
 */
export class HookRunner {
  private readonly options: Required<Omit<HookRunnerOptions, "env" | "sandbox">> & Pick<HookRunnerOptions, "env" | "sandbox">;

  constructor(
    private readonly hooks: readonly ConfiguredHook[],
    options: HookRunnerOptions = {},
  ) {
    this.options = {
      defaultTimeoutMs: options.defaultTimeoutMs ?? 60_000,
      killGraceMs: options.killGraceMs ?? 1_000,
      maxStopContinuations: options.maxStopContinuations ?? 3,
      ...(options.env ? { env: options.env } : {}),
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    };
  }

  /** Whether any hook is configured for the event (and, for tool events, this tool). */
  has(event: HookEventName, target?: string): boolean {
    return this.hooks.some((h) => h.event === event && h.matches(target));
  }

  async preToolUse(input: PreToolUseInput, signal?: AbortSignal): Promise<PreToolUseOutcome> {
    const replies = await this.run("PreToolUse", input, signal);
    const outcome: PreToolUseOutcome = { ...common(replies) };
    const votes = replies.flatMap((r) => (r.block !== undefined ? [{ decision: "deny" as const, reason: r.block }] : r.permission ? [r.permission] : []));
    if (outcome.endRun !== undefined) votes.push({ decision: "deny", reason: outcome.endRun });
    for (const decision of ["deny", "ask", "allow"] as const) {
      const chosen = votes.filter((v) => v.decision === decision);
      if (chosen.length === 0) continue;
      outcome.decision = decision;
      const reason = joined(chosen.map((v) => v.reason));
      if (reason) outcome.reason = reason;
      break;
    }
    const context = joined(replies.map((r) => r.additionalContext));
    if (context) outcome.additionalContext = context;
    const updated = replies.find((r) => r.updatedInput)?.updatedInput;
    if (updated) outcome.updatedInput = updated;
    return outcome;
  }

  async postToolUse(input: PostToolUseInput, signal?: AbortSignal): Promise<BlockOutcome> {
    return blockOutcome(await this.run("PostToolUse", input, signal));
  }

  /** A block (exit 2, decision "block" or continue false) means: do not send the prompt; end the run with `reason`. */
  async userPromptSubmit(input: UserPromptSubmitInput, signal?: AbortSignal): Promise<BlockOutcome> {
    const outcome = blockOutcome(await this.run("UserPromptSubmit", input, signal));
    if (outcome.endRun === undefined || outcome.block) return outcome;
    return { ...outcome, block: true, reason: outcome.endRun };
  }

  /**
   * The agent is about to finish. `block` means it must go on, told `reason`. Past
   * `maxStopContinuations` forced continuations in a row, a block is overruled with a notice;
   * `continue: false` from any hook also lets the run end.
   */
  async stop(input: StopInput, signal?: AbortSignal): Promise<BlockOutcome> {
    const outcome = blockOutcome(await this.run("Stop", input, signal));
    if (!outcome.block) return outcome;
    if (outcome.endRun !== undefined) return withoutBlock(outcome);
    const cap = this.options.maxStopContinuations;
    if (input.continuations < cap) return outcome;
    return {
      ...withoutBlock(outcome),
      notices: [
        ...outcome.notices,
        {
          level: "warning",
          message: `A Stop hook asked the agent to keep going again after ${cap} times in a row; the run ends anyway. Its reason: ${outcome.reason ?? "(none)"}`,
        },
      ],
    };
  }

  async sessionStart(input: SessionStartInput, signal?: AbortSignal): Promise<ContextOutcome> {
    const replies = await this.run("SessionStart", input, signal);
    const context = joined(replies.map((r) => r.additionalContext));
    return { ...common(replies), ...(context ? { additionalContext: context } : {}) };
  }

  async sessionEnd(input: SessionEndInput, signal?: AbortSignal): Promise<HookOutcome> {
    return { notices: common(await this.run("SessionEnd", input, signal)).notices };
  }

  async preCompact(input: PreCompactInput, signal?: AbortSignal): Promise<HookOutcome> {
    return common(await this.run("PreCompact", input, signal));
  }

  async notification(input: NotificationInput, signal?: AbortSignal): Promise<HookOutcome> {
    return { notices: common(await this.run("Notification", input, signal)).notices };
  }

  private async run<E extends HookEventName>(event: E, input: HookInputs[E], signal: AbortSignal | undefined): Promise<HookReply[]> {
    const target = matchTarget(event, input);
    const selected = new Map<string, ConfiguredHook>();
    for (const hook of this.hooks) {
      if (hook.event === event && hook.matches(target) && !selected.has(hook.command)) selected.set(hook.command, hook);
    }
    if (selected.size === 0) return [];
    const stdin = JSON.stringify(hookPayload(event, input));
    return Promise.all(
      [...selected.values()].map(async (hook) => {
        if (hook.stillTrusted && !hook.stillTrusted()) {
          const message = `Skipped the hook "${hook.command}": ${hook.source} or a file it runs changed since it was trusted. Review it and run \`cairn trust\` to use it again.`;
          return { notices: [{ level: "warning", message }] } satisfies HookReply;
        }
        const timeoutMs = hook.timeoutMs ?? this.options.defaultTimeoutMs;
        const run = await runHook({
          command: hook.command,
          cwd: input.cwd,
          stdin,
          timeoutMs,
          killGraceMs: this.options.killGraceMs,
          ...(signal ? { signal } : {}),
          ...(this.options.env ? { env: this.options.env } : {}),
          ...(hook.fromWorkspace && this.options.sandbox ? { sandbox: this.options.sandbox } : {}),
        });
        return readReply(event, hook.command, timeoutMs, run);
      }),
    );
  }
}

function common(replies: HookReply[]): HookOutcome {
  const endRun = joined(replies.map((r) => r.endRun));
  return { notices: replies.flatMap((r) => r.notices), ...(endRun ? { endRun } : {}) };
}

function blockOutcome(replies: HookReply[]): BlockOutcome {
  const reason = joined(replies.map((r) => r.block));
  const context = joined(replies.map((r) => r.additionalContext));
  return {
    ...common(replies),
    block: replies.some((r) => r.block !== undefined),
    ...(reason ? { reason } : {}),
    ...(context ? { additionalContext: context } : {}),
  };
}

function withoutBlock(outcome: BlockOutcome): BlockOutcome {
  const { reason: _reason, ...rest } = outcome;
  return { ...rest, block: false };
}

/** Texts of several hooks, in configuration order (global before project). */
function joined(texts: Array<string | undefined>): string | undefined {
  const present = texts.filter((t): t is string => t !== undefined && t !== "");
  return present.length > 0 ? present.join("\n\n") : undefined;
}
