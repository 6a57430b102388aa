import type { AgentEvent } from "../events/index.js";
import type { ImagePart } from "../model/types.js";
import { emptyUsage } from "../model/types.js";
import { SessionRunner, type RunnerOptions } from "../session/session-runner.js";
import { loopHooks } from "./agent-hooks.js";
import type { Agent, AgentConfig, AgentHooks, AgentSnapshot, AgentStatus, PendingToolCall, RunInput, AgentRunResult } from "./agent-types.js";

/**
 * An agent for programs: `run` resolves with the result, events go to subscribers and hooks, and
 * `snapshot` / `restore` carry it between processes. It is a session runner (as `cairn run` and
 * every host drive one), so it behaves as `cairn run` does: same settings, store, checkpoints, MCP
 * servers, sandbox and policy, a stored task's resume, and `new_task` hand-offs.
 */
export function createAgent(config: AgentConfig): Agent {
  return new SessionAgent(config);
}

const statusOf = (subtype: AgentRunResult["subtype"]): AgentStatus =>
  subtype === "success" ? "completed" : subtype === "needs_input" ? "needs_input" : subtype === "error_aborted" ? "aborted" : "failed";

class SessionAgent implements Agent {
  private runner: SessionRunner | undefined;
  private status: AgentStatus = "idle";
  private readonly pending = new Map<string, PendingToolCall>();
  private readonly listeners = new Set<(event: AgentEvent) => void>();
  private readonly hooks: Partial<AgentHooks>;
  private parentId: string | undefined;

  constructor(private readonly config: AgentConfig) {
    this.hooks = config.hooks ?? {};
    this.parentId = config.parentId;
  }

  get id(): string | undefined {
    return this.runner?.id;
  }

  run(input: RunInput): Promise<AgentRunResult> {
    return this.send(input);
  }

  continue(input: RunInput): Promise<AgentRunResult> {
    if (!this.runner?.session) return Promise.reject(new Error("Nothing to continue yet: call run first, or restore a snapshot."));
    return this.send(input);
  }

  abort(): void {
    this.runner?.stop();
  }

  subscribe(listener: (event: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  snapshot(): AgentSnapshot {
    const session = this.runner?.session;
    const task = session?.task.snapshot();
    return structuredClone({
      id: session?.id,
      // The host's word, else the stored link (a sub-agent's or a handed-over task's parent).
      parentId: this.parentId ?? session?.store.metadata().parent?.id,
      status: this.status,
      iteration: task?.turns ?? 0,
      mode: task?.mode ?? this.config.overrides?.mode ?? "act",
      pendingToolCalls: [...this.pending.values()],
      messages: task?.messages ?? [],
      usage: task?.usage ?? emptyUsage(),
      costUsd: task?.costUsd ?? null,
    });
  }

  async restore(snapshot: AgentSnapshot): Promise<void> {
    if (this.status === "running") throw new Error("Cannot restore while the agent is running; abort it and wait for run to end first.");
    if (snapshot.id === undefined) throw new Error("This snapshot was taken before the agent's first run, so there is no task to restore; call run instead.");
    const runner = this.follow(await SessionRunner.resume({ id: snapshot.id, ...this.runnerOptions() }));
    await this.runner?.close();
    this.runner = runner;
    // The store is written as the task goes, so it may hold more than the snapshot: go back to the snapshot's
    // conversation. A snapshot taken mid-run keeps the stored one, whose cut calls the task repairs when it goes on.
    const task = runner.session!.task;
    if (snapshot.status !== "running" && task.snapshot().messages.length !== snapshot.messages.length) task.restore(snapshot.messages);
    this.status = snapshot.status === "running" ? "aborted" : snapshot.status;
    this.parentId = snapshot.parentId ?? this.config.parentId;
    this.pending.clear();
  }

  async close(): Promise<void> {
    await this.runner?.close();
  }

  private runnerOptions(): RunnerOptions {
    const { config } = this;
    return {
      ...(config.home ? { home: config.home } : {}),
      ...(config.env ? { env: config.env } : {}),
      ...(config.overrides ? { overrides: config.overrides } : {}),
      ...(config.host ? { host: config.host } : {}),
      ...(config.executors?.files ? { files: config.executors.files } : {}),
      ...(config.executors?.commands ? { commands: config.executors.commands } : {}),
      hooks: loopHooks(this.hooks),
    };
  }

  private follow(runner: SessionRunner): SessionRunner {
    runner.subscribe((event) => this.observe(event));
    return runner;
  }

  private async send(input: RunInput): Promise<AgentRunResult> {
    if (this.status === "running") throw new Error("This agent is already running; wait for its run to end, or abort it.");
    this.status = "running";
    try {
      let message: { text: string; images: readonly ImagePart[] } = typeof input === "string" ? { text: input, images: [] } : { text: input.text, images: input.images ?? [] };
      for (const hook of this.hooks.beforeRun ?? []) {
        const changed = await hook(message);
        if (changed) message = { text: changed.text, images: changed.images ?? message.images };
      }
      this.runner ??= this.follow(SessionRunner.fresh({ cwd: this.config.cwd, ...(this.config.title ? { title: this.config.title } : {}), ...this.runnerOptions() }));
      const result = await this.runner.send(message.text, message.images);
      this.status = statusOf(result.subtype);
      this.pending.clear();
      for (const hook of this.hooks.afterRun ?? []) await hook(result);
      return result;
    } catch (error) {
      this.status = "failed";
      throw error;
    }
  }

  /** Keeps the calls in flight for `snapshot`, and hands the event to subscribers. */
  private observe(event: AgentEvent): void {
    if (event.type === "tool_call") this.pending.set(event.tool_use_id, { tool_use_id: event.tool_use_id, name: event.name, input: event.input, status: "pending" });
    if (event.type === "tool_call_update") {
      const call = this.pending.get(event.tool_use_id);
      if (call && (event.status === "awaiting_approval" || event.status === "running")) call.status = event.status;
      else if (call) this.pending.delete(event.tool_use_id);
    }
    for (const listener of this.listeners) listener(event);
  }
}
