import { imagesRefused, SessionError, type AgentEvent, type ApprovalResponse, type Host, type ImagePart, type Mode, type SessionRunner } from "@cairn/core";
import type { RestoreDone, RestoreWhat } from "./checkpoint-timeline.js";
import type { WebEvent } from "./web-event.js";

/** An event of task `task_id` for the server's log. */
type Publish = (task_id: string, event: AgentEvent | WebEvent) => void;

export type Answer = { ok: true } | { ok: false; status: 400 | 404 | 409; message: string };

/** `budgetUsd`: a plan approved with this task budget. */
type PromptAnswer = { approved: boolean; feedback?: string; budgetUsd?: number };

const working: Answer = { ok: false, status: 409, message: "The task is working; wait for it to finish or stop it first." };

/**
 * One task this server runs, through core's SessionRunner: its events go to the server's log under
 * the task's id (after a hand-off, the new task's), and the person's answers to what it waits for
 * (approvals, a question, a plan, whether to go on, a hand-off) come from any tab. Runs belong to
 * the server, not to a page: closing the browser never stops them.
 */
export class LiveTask {
  private runner: SessionRunner | undefined;
  private taskId: string | undefined;
  private run: Promise<void> | undefined;
  /** The run's result is out: what is left of it is winding down, and a message may follow at once. */
  private settled = false;
  private approvals = new Map<string, (response: ApprovalResponse) => void>();
  private question: ((answer: string | undefined) => void) | undefined;
  private prompt: ((answer: PromptAnswer) => void) | undefined;
  readonly host: Host;

  /** `handedOver`: the work went on from task `from` in task `to` (new_task agreed to). */
  constructor(
    private readonly publish: Publish,
    private readonly handedOver: (from: string, to: string) => void,
  ) {
    this.host = {
      approve: (request, signal) => this.wait<ApprovalResponse>(signal, { approved: false, feedback: "The task was stopped." }, (resolve) => this.approvals.set(request.tool_use_id, resolve), () => this.approvals.delete(request.tool_use_id)),
      ask: (_question, _options, signal) => this.wait<string | undefined>(signal, undefined, (resolve) => (this.question = resolve), () => (this.question = undefined)),
      reviewPlan: (_plan, signal) => this.waitForPrompt(signal),
      confirmContinue: async (_reason, signal) => (await this.waitForPrompt(signal)).approved,
      confirmNewTask: async (context, signal) => {
        const answer = await this.waitForPrompt(signal);
        return answer.approved ? { approved: true, context } : { approved: false, ...(answer.feedback ? { feedback: answer.feedback } : {}) };
      },
    };
  }

  get id(): string {
    return this.taskId!;
  }

  /** The task's workspace and store, for its checkpoints and @ completion. */
  get opened() {
    const session = this.runner?.session;
    return session && { cwd: session.settings.cwd, store: session.store, ...(session.checkpoints ? { checkpoints: session.checkpoints } : {}) };
  }

  get running(): boolean {
    return this.run !== undefined;
  }

  /**
   * Follows the runner's events. `known`: the log already has this task's earlier events (it ran
   * here before), so of its record only the new session_opened goes out, not the stored events again.
   */
  attach(runner: SessionRunner, known: boolean): void {
    this.runner = runner;
    this.taskId = runner.id!;
    const replayed: AgentEvent[] = [];
    let replaying = true;
    runner.subscribe((event) => (replaying ? replayed.push(event) : this.forward(event)), { replay: true });
    replaying = false;
    for (const event of known ? replayed.filter((e) => e.type === "session_opened").slice(-1) : replayed) this.publishEvent(event);
  }

  /** Starts a run with the person's message and pictures; refused while one is in progress, or pictures for a model that takes none. */
  async send(text: string, images: readonly ImagePart[] = []): Promise<Answer> {
    const runner = this.runner;
    if (!runner) return { ok: false, status: 409, message: "The task is still opening; try again in a moment." };
    if (this.run) {
      if (!this.settled) return working;
      await this.run;
      if (this.running) return working;
    }
    const model = runner.session?.settings.model;
    if (images.length > 0 && model && !model.info?.supportsImages) return { ok: false, status: 400, message: imagesRefused(model.id) };
    this.settled = false;
    this.run = runner.send(text, images).then(
      () => undefined,
      (error: unknown) => this.publish(this.id, { type: "error", message: (error as Error).message ?? String(error), kind: "web_host" }),
    );
    void this.run.finally(() => (this.run = undefined));
    return { ok: true };
  }

  /** Act or Plan for the next run; refused while one runs (the mode of a running turn does not change under it). */
  setMode(mode: Mode): Answer {
    if (!this.runner) return { ok: false, status: 409, message: "The task is still opening; try again in a moment." };
    if (this.run) return { ok: false, status: 409, message: "The task is working; switch modes when it has finished or is stopped." };
    this.runner.setMode(mode);
    return { ok: true };
  }

  /** Files, the conversation or both back to checkpoint `number` (the runner says so in a `restored` event); `summary` words it for the person. */
  async restore(number: number, what: RestoreWhat): Promise<{ ok: true; done: RestoreDone } | { ok: false; status: 409; message: string }> {
    if (!this.runner || this.run) return { ok: false, status: 409, message: "The task is working; stop it before restoring a checkpoint." };
    try {
      const done = await this.runner.restore(number, what);
      const files = done.files && { restored: done.files.restored, removed: done.files.removed, before_number: done.files.beforeNumber, kept_untouched: done.files.untouched.map((f) => f.path) };
      const parts = [
        files ? `files restored (${files.restored} written back, ${files.removed} removed; checkpoint ${files.before_number} undoes it)` : "",
        done.messagesKept !== undefined ? `conversation cut back to ${done.messagesKept} messages` : "",
        files && files.kept_untouched.length > 0 ? `kept ${files.kept_untouched.length} file(s) the agent never touched` : "",
      ].filter(Boolean);
      const summary = `Checkpoint ${number}: ${parts.join("; ")}.`;
      return { ok: true, done: { checkpoint: number, summary, ...(files ? { files } : {}), ...(done.messagesKept !== undefined ? { messages_kept: done.messagesKept } : {}) } };
    } catch (error) {
      if (error instanceof SessionError) return { ok: false, status: 409, message: error.message };
      throw error;
    }
  }

  approve(tool_use_id: string, response: ApprovalResponse): Answer {
    const resolve = this.approvals.get(tool_use_id);
    if (!resolve) return { ok: false, status: 409, message: "That call is not waiting for approval any more (answered in another tab, or the task stopped)." };
    this.approvals.delete(tool_use_id);
    resolve(response);
    return { ok: true };
  }

  answer(text: string): Answer {
    const resolve = this.question;
    if (!resolve) return { ok: false, status: 409, message: "The task is not waiting for an answer." };
    this.question = undefined;
    resolve(text);
    return { ok: true };
  }

  /** The person's answer to a plan (approve, with a budget or not, or feedback), to whether to go on, or to a hand-off (start the new task, or stay with feedback). */
  answerPrompt(approved: boolean, feedback: string | undefined, budgetUsd?: number): Answer {
    const resolve = this.prompt;
    if (!resolve) return { ok: false, status: 409, message: "The task is not waiting for a plan approval, a go-ahead or a hand-off." };
    this.prompt = undefined;
    resolve({ approved, ...(feedback ? { feedback } : {}), ...(approved && budgetUsd !== undefined ? { budgetUsd } : {}) });
    return { ok: true };
  }

  stop(): void {
    this.runner?.stop();
  }

  async close(): Promise<void> {
    await this.runner?.close();
  }

  /** A live event: after a hand-off this task's events are the new task's, which starts from the hand-off too. */
  private forward(event: AgentEvent): void {
    if (event.type !== "handoff" || event.from_task_id !== this.taskId) return this.publishEvent(event);
    const from = this.id;
    this.settled = false;
    this.publish(from, event);
    this.taskId = event.task_id;
    this.handedOver(from, event.task_id);
    this.publish(event.task_id, event);
  }

  private publishEvent(event: AgentEvent): void {
    this.settled = event.type === "result";
    this.publish(this.id, event);
  }

  private waitForPrompt(signal: AbortSignal): Promise<PromptAnswer> {
    return this.wait<PromptAnswer>(signal, { approved: false }, (resolve) => (this.prompt = resolve), () => (this.prompt = undefined));
  }

  /** Waits for the person's answer, which `hold` keeps where an endpoint finds it; a stop answers `stopped`. */
  private wait<T>(signal: AbortSignal, stopped: T, hold: (resolve: (answer: T) => void) => void, release: () => void): Promise<T> {
    return new Promise((resolve) => {
      const onAbort = () => {
        release();
        resolve(stopped);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      hold((answer) => {
        signal.removeEventListener("abort", onAbort);
        resolve(answer);
      });
    });
  }
}
