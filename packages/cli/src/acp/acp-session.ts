import type { AgentContext, ContentBlock, RequestPermissionOutcome, RequestPermissionRequest, SessionModeState, SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import type { AgentEvent, ApprovalRequest, ApprovalResponse, Host, Mode, SessionRunner, TaskResult } from "@cairn/core";
import { availableCommands } from "./available-commands.js";
import { handoffAnswer, handoffPermission, type HandoffAnswer } from "./handoff.js";
import { answerFrom, permissionRequest } from "./permission.js";
import { promptText } from "./prompt-text.js";
import { replayUpdates } from "./replay.js";
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

/**
 * One ACP session: core's SessionRunner (which opens, carries on and hands over the task), its
 * events sent to the editor as session/update, its approvals and hand-offs asked through
 * session/request_permission. A question or a plan ends the turn as a message, and the next
 * prompt answers it. After a hand-off (new_task) the session goes on in the new task: the
 * editor's thread and the session id (its first task's) stay.
 */
export class AcpSession {
  private runner: SessionRunner | undefined;
  /** The id the editor knows this session by: its first task's, kept across hand-offs. */
  private sessionId: string | undefined;
  /** The card of the last new_task call, on which the editor is asked about the hand-off. */
  private handoffCall: string | undefined;
  private updates = new SessionUpdates("/");
  /** Notifications go out in the order events happened, and all of a turn's before its response. */
  private sending: Promise<void> = Promise.resolve();
  private cancelled = false;
  private lastStopReason: string | undefined;
  /** The title the editor was last told, to tell it again only when the task's changes. */
  private title = "";
  /** Recorded events of a loaded session, kept while the runner replays them (see replay). */
  private recorded: AgentEvent[] | undefined;
  /** Kinds of calls the person refused for the rest of this session ("reject always"). */
  private readonly refused = new Set<string>();

  /** What the runner is given as its host: approvals and hand-offs go to the editor; questions end the turn. */
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
    return this.open().mode;
  }

  /**
   * Called once the runner is opened with `host`. `loaded`: the session is an editor's thread
   * loaded again (session/load), by the id the editor knows it by (its first task's), with the
   * recorded events of the tasks before this one (hand-offs); replay() then sends them all.
   */
  adopt(runner: SessionRunner, loaded?: { sessionId: string; earlier: AgentEvent[] }): void {
    this.runner = runner;
    this.sessionId = loaded?.sessionId ?? runner.id!;
    const session = runner.session!;
    this.updates = new SessionUpdates(session.settings.cwd, this.notices);
    this.title = session.store.metadata().title;
    this.recorded = [];
    runner.subscribe((event) => (this.recorded ? this.recorded.push(event) : this.onEvent(event)), { replay: true });
    this.recorded = loaded ? [...loaded.earlier, ...this.recorded] : undefined;
  }

  /** The stored conversation, sent again as it happened (session/load). */
  async replay(): Promise<void> {
    const recorded = this.recorded ?? [];
    this.recorded = undefined;
    for (const update of replayUpdates(recorded, this.open().session!.settings.cwd)) this.send(update);
    await this.sending;
  }

  /** The slash commands and workflows a prompt may start with. */
  announceCommands(): void {
    const { settings } = this.open().session!;
    this.send({ sessionUpdate: "available_commands_update", availableCommands: availableCommands(settings.cwd, settings.home) });
  }

  async prompt(blocks: readonly ContentBlock[]): Promise<StopReason> {
    const runner = this.open();
    if (runner.running) throw new Error("A prompt is already running in this session: cancel it or wait for it to end.");
    const { text, images } = promptText(blocks, { cwd: runner.session!.settings.cwd });
    this.cancelled = false;
    this.lastStopReason = undefined;
    try {
      return this.stopReason(await runner.send(text, images));
    } finally {
      for (const update of this.updates.release()) this.send(update);
      await this.sending;
    }
  }

  cancel(): void {
    if (!this.runner?.running) return;
    this.cancelled = true;
    this.runner.stop();
  }

  setMode(mode: Mode): void {
    this.open().setMode(mode);
  }

  async close(): Promise<void> {
    await this.runner?.close().catch(() => undefined);
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
    // An editor that shows no notices has them in its log of the agent (a hand-off that could not start, a checkpoint not made).
    if (event.type === "system" && event.subtype === "notice" && !this.notices) this.log(event.message);
    for (const update of this.updates.map(event)) this.send(update);
    // The thread is named after the task's first message, and after a hand-off, the new task's.
    const title = this.runner?.session?.store.metadata().title ?? "";
    if ((event.type === "user_message" || event.type === "session_opened") && title !== "" && title !== this.title) {
      this.title = title;
      this.send({ sessionUpdate: "session_info_update", title });
    }
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
    const asked = permissionRequest(this.id, request, this.open().session!.settings.cwd);
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

  private open(): SessionRunner {
    if (!this.runner) throw new Error("The session's task is not open yet.");
    return this.runner;
  }
}
