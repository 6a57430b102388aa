import type { AgentContext, ContentBlock, RequestPermissionOutcome, RequestPermissionRequest, SessionModeState, SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import { removeFromHistoryIndex, type AgentEvent, type Mode, type ApprovalRequest, type ApprovalResponse, type Host, type ImagePart, type TaskResult } from "@cairn/core";
import { availableCommands } from "./available-commands.js";
import { handoffAnswer, handoffPermission, type HandoffAnswer } from "./handoff.js";
import { firstMessageAfterLoad, type AcpTask } from "./open-acp-task.js";
import { answerFrom, permissionRequest } from "./permission.js";
import { promptText } from "./prompt-text.js";
import { replayUpdates } from "./replay.js";
import { afterStop } from "../stop-note.js";
import { SessionUpdates } from "./session-updates.js";

export function modeState(current: Mode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: [
      { id: "act", name: "Act", description: "Reads, edits and runs commands (asking where your settings say so)" },
      { id: "plan", name: "Plan", description: "Explores and proposes a plan; changes nothing" },
    ],
  };
}

/** Opens the fresh task a hand-off (new_task) goes on in, linked to the task it carries on. */
export type HandOver = (context: string, from: AcpTask) => Promise<AcpTask>;

/**
 * One ACP session: one Cairn task at a time, its events sent to the editor as session/update, its
 * approvals asked through session/request_permission. A prompt is a run of the task; a question
 * or a plan ends the turn as a message, and the next prompt answers it. When the model hands over
 * (new_task) and the person agrees, the session goes on in the new task: the editor's thread and
 * the session id stay.
 */
export class AcpSession {
  private opened: AcpTask | undefined;
  /** The id the editor knows this session by: its first task's, kept across hand-offs. */
  private sessionId: string | undefined;
  private handOver: HandOver | undefined;
  /** The card of the last new_task call, on which the editor is asked about the hand-off. */
  private handoffCall: string | undefined;
  private updates = new SessionUpdates("/");
  /** Notifications go out in the order events happened, and all of a turn's before its response. */
  private sending: Promise<void> = Promise.resolve();
  private running = false;
  private cancelled = false;
  private started = false;
  private lastResult: TaskResult | undefined;
  private lastStopReason: string | undefined;
  /** Kinds of calls the person refused for the rest of this session ("reject always"). */
  private readonly refused = new Set<string>();

  /** What the task is given as its host: approvals go to the editor; questions end the turn. */
  readonly host: Host = {
    approve: (request, signal) => this.approve(request, signal),
    confirmNewTask: (context, signal) => this.confirmNewTask(context, signal),
  };

  /** `notices`: the editor shows session notices (untrusted config skipped, hooks' messages); `log`: a line for the editor's log of the agent (stderr). */
  constructor(
    private readonly client: AgentContext,
    private readonly notices = false,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  get id(): string {
    if (this.sessionId === undefined) throw new Error("The session's task is not open yet.");
    return this.sessionId;
  }

  get mode(): Mode {
    return this.task().task.snapshot().mode;
  }

  /**
   * Called once the task is opened with `host`. `sessionId`: what the editor calls the session (by
   * default the task's id; a loaded thread keeps the id it was loaded by).
   */
  adopt(opened: AcpTask, handOver?: HandOver, sessionId = opened.id): void {
    this.sessionId ??= sessionId;
    this.handOver ??= handOver;
    this.follow(opened);
  }

  private follow(opened: AcpTask): void {
    this.opened = opened;
    this.updates = new SessionUpdates(opened.cwd, this.notices);
    this.started = opened.resumed !== undefined;
    opened.task.subscribe((event) => this.onEvent(event));
  }

  /** The stored conversation, sent again as it happened (session/load). */
  async replay(): Promise<void> {
    const opened = this.task();
    for (const messages of [...(opened.earlier ?? []), opened.resumed?.messages ?? []]) for (const update of replayUpdates(messages)) this.send(update);
    await this.sending;
  }

  /** The slash commands and workflows a prompt may start with. */
  announceCommands(): void {
    const opened = this.task();
    this.send({ sessionUpdate: "available_commands_update", availableCommands: availableCommands(opened.cwd, opened.home) });
  }

  async prompt(blocks: readonly ContentBlock[]): Promise<StopReason> {
    const opened = this.task();
    if (this.running) throw new Error("A prompt is already running in this session: cancel it or wait for it to end.");
    const { text, images } = promptText(blocks, { cwd: opened.cwd });
    this.running = true;
    this.cancelled = false;
    this.lastStopReason = undefined;
    try {
      let result = await drain(this.runFor(text, images));
      // new_task, agreed to: the fresh task starts now and its run ends this turn (the limit on
      // chained hand-offs is the tool's, from the tasks' links, so this ends).
      while (result.new_task && !this.cancelled) {
        const run = await this.handOverTo(result.new_task);
        if (!run) break;
        result = await drain(run);
      }
      this.lastResult = result;
      return this.stopReason(result);
    } finally {
      this.running = false;
      await this.sending;
    }
  }

  cancel(): void {
    if (!this.running) return;
    this.cancelled = true;
    this.task().task.abort();
  }

  setMode(mode: Mode): void {
    const opened = this.task();
    opened.task.setMode(mode);
    opened.store.update({ mode });
    this.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
  }

  async close(): Promise<void> {
    const opened = this.opened;
    if (!opened) return;
    if (this.running) opened.task.abort();
    await opened.task.endSession("other").catch(() => undefined);
    await opened.close();
    // Editors open a session for every new thread: one never prompted leaves no empty task in the history.
    if (!this.started) {
      opened.store.delete();
      removeFromHistoryIndex(opened.home, opened.id);
    }
  }

  private runFor(text: string, images: ImagePart[]): AsyncGenerator<AgentEvent, TaskResult> {
    const opened = this.task();
    if (!this.started) {
      this.started = true;
      const title = text.split("\n").find((l) => l.trim() !== "")?.trim().slice(0, 120);
      if (title) {
        opened.store.update({ title });
        this.send({ sessionUpdate: "session_info_update", title });
      }
      return opened.task.run(text, images);
    }
    if (opened.resumed) {
      const message = firstMessageAfterLoad(opened, text);
      delete opened.resumed;
      return opened.task.continue(message, images);
    }
    if (this.lastResult?.subtype === "error_aborted") {
      return opened.task.continue(afterStop(text), images);
    }
    return opened.task.continue(text, images);
  }

  /** Ends the current task and opens the one that carries its work on, from the context alone. */
  private async handOverTo(context: string): Promise<AsyncGenerator<AgentEvent, TaskResult> | undefined> {
    const from = this.task();
    let next: AcpTask;
    try {
      if (!this.handOver) throw new Error("this session cannot open tasks");
      next = await this.handOver(context, from);
    } catch (error) {
      this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n\nThe new task could not start: ${(error as Error).message.split("\n")[0]}\n` } });
      return undefined;
    }
    // Cancelled while it opened (cancel() could only stop the task that had ended): nothing of a
    // cancelled turn takes effect, so the new task never runs and is not kept; the work stays here.
    if (this.cancelled) {
      await next.task.endSession("other").catch(() => undefined);
      await next.close();
      next.store.delete();
      removeFromHistoryIndex(next.home, next.id);
      return undefined;
    }
    await from.task.endSession("other").catch(() => undefined);
    await from.close();
    this.follow(next);
    this.started = true;
    this.send({ sessionUpdate: "session_info_update", title: next.store.metadata().title });
    // The new task's first message, as the thread will show it when loaded again.
    this.send({ sessionUpdate: "user_message_chunk", content: { type: "text", text: context } });
    return next.task.run(context);
  }

  private async confirmNewTask(context: string, signal: AbortSignal): Promise<HandoffAnswer> {
    await this.sending;
    try {
      const asked = handoffPermission(this.id, this.handoffCall ?? "new_task", context);
      const outcome = await this.ask(asked, signal);
      if (outcome.outcome === "selected" && !asked.options.some((o) => o.optionId === outcome.optionId)) {
        this.log(`the editor answered whether to start a new task with "${outcome.optionId}", which it was not offered (${asked.options.map((o) => o.optionId).join(", ")}): the work stays in this task.`);
      }
      return handoffAnswer(outcome, context);
    } catch {
      return { approved: false, feedback: "The editor did not answer whether to start the new task." };
    }
  }

  private stopReason(result: TaskResult): StopReason {
    if (this.cancelled || result.subtype === "error_aborted") return "cancelled";
    // The provider's safety filter ended the last reply (Anthropic's refusal, OpenAI's content_filter).
    if (this.lastStopReason === "content-filter") return "refusal";
    if (result.subtype === "error_max_turns") return "max_turn_requests";
    if (result.subtype !== "success" && result.subtype !== "needs_input" && result.result) {
      this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n\nStopped: ${result.result}\n` } });
    }
    return "end_turn";
  }

  private onEvent(event: AgentEvent): void {
    if (event.type === "assistant") this.lastStopReason = event.message.stop_reason;
    if (event.type === "tool_call" && event.name === "new_task") this.handoffCall = event.tool_use_id;
    for (const update of this.updates.map(event)) this.send(update);
  }

  private send(update: SessionUpdate): void {
    const sessionId = this.id;
    this.sending = this.sending.then(() => this.client.notify("session/update", { sessionId, update })).catch(() => undefined);
  }

  private async approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> {
    const kind = request.suggested_rule ?? request.tool;
    if (this.refused.has(kind)) return { approved: false, feedback: "The person refused this kind of call for the rest of this session; do it another way or ask them." };
    // The call's card is on screen before the question about it.
    await this.sending;
    const asked = permissionRequest(this.id, request, this.task().cwd);
    let outcome;
    try {
      outcome = await this.ask(asked, signal);
    } catch {
      return { approved: false, feedback: "The editor did not answer the permission request." };
    }
    if (outcome.outcome === "cancelled" && signal.aborted) return { approved: false, feedback: "The turn was cancelled in the editor before the call ran." };
    const { rejectAlways, unoffered, ...answer } = answerFrom(outcome, asked.options);
    if (unoffered !== undefined) {
      const offered = asked.options.map((o) => o.optionId).join(", ");
      this.log(`the editor answered the permission request for "${request.summary}" with "${unoffered}", which it was not offered (${offered}): the call is refused.`);
    }
    if (rejectAlways) this.refused.add(kind);
    return answer;
  }

  /**
   * The editor's answer to a permission request, or "cancelled" once the turn is: after
   * session/cancel, ACP has the editor answer "cancelled", but an editor (or a person still
   * clicking) may answer Allow later, and nothing of a cancelled turn may take effect.
   */
  private async ask(request: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionOutcome> {
    const cancelled: RequestPermissionOutcome = { outcome: "cancelled" };
    if (signal.aborted) return cancelled;
    const answered = this.client.request("session/request_permission", request, { cancellationSignal: signal }).then((r) => r.outcome);
    answered.catch(() => undefined); // an answer (or a failure) that comes after the cancel is dropped
    let stop = () => undefined as void;
    const stopped = new Promise<RequestPermissionOutcome>((resolve) => {
      stop = () => resolve(cancelled);
      signal.addEventListener("abort", stop, { once: true });
    });
    try {
      const outcome = await Promise.race([answered, stopped]);
      return signal.aborted ? cancelled : outcome;
    } finally {
      signal.removeEventListener("abort", stop);
    }
  }

  private task(): AcpTask {
    if (!this.opened) throw new Error("The session's task is not open yet.");
    return this.opened;
  }
}

async function drain(run: AsyncGenerator<AgentEvent, TaskResult>): Promise<TaskResult> {
  let next = await run.next();
  while (!next.done) next = await run.next();
  return next.value;
}
