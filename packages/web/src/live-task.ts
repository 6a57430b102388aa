import { imagesRefused, type AgentEvent, type ApprovalRequest, type ApprovalResponse, type Host, type ImagePart, type TaskResult } from "@cairn/core";
import { afterStop } from "@cairn/core";
import type { WebSession } from "./task-opener.js";
import type { WebEvent } from "./web-event.js";
import type { Mode } from "@cairn/core";

type Publish = (event: AgentEvent | WebEvent) => void;

export type Answer = { ok: true } | { ok: false; status: 400 | 404 | 409; message: string };

/**
 * One task this server runs: the session it was opened with, the run in progress, and the
 * questions it is waiting on (approvals, a question). Runs belong to the server, not to a page:
 * closing the browser never stops them, and any tab may answer what the task waits for.
 */
export class LiveTask {
  private session: WebSession | undefined;
  private run: Promise<TaskResult | undefined> | undefined;
  private approvals = new Map<string, (response: ApprovalResponse) => void>();
  private question: { resolve: (answer: string | undefined) => void } | undefined;
  private lastQuestionId: string | undefined;
  private prompt: ((answer: { approved: boolean; feedback?: string }) => void) | undefined;
  private firstRunDone = false;
  private lastResult: TaskResult["subtype"] | undefined;
  readonly host: Host;

  constructor(private readonly publish: Publish) {
    this.host = {
      approve: (request, signal) => this.waitForApproval(request, signal),
      ask: (_question, _options, signal) => this.waitForAnswer(signal),
      reviewPlan: (plan, signal) => this.waitForPrompt("plan", plan, signal),
      confirmContinue: async (reason, signal) => (await this.waitForPrompt("continue", reason, signal)).approved,
    };
  }

  get id(): string {
    return this.session!.id;
  }

  get opened(): WebSession | undefined {
    return this.session;
  }

  get running(): boolean {
    return this.run !== undefined;
  }

  /** `replay`: publish the stored task's recorded events (not when this server's log already has them). */
  attach(session: WebSession, resumed: boolean, replay = true): void {
    this.session = session;
    this.publish({
      type: "web_task",
      title: session.title,
      cwd: session.cwd,
      model: session.model.id,
      provider: session.model.provider,
      context_window: session.model.contextWindow,
      mode: session.mode,
      resumed,
    });
    if (replay) for (const event of session.history) this.publish(event);
  }

  /** Starts a run with the person's message and pictures; refused while one is in progress, or pictures for a model that takes none. */
  send(text: string, images: readonly ImagePart[] = []): Answer {
    const session = this.session;
    if (!session) return { ok: false, status: 409, message: "The task is still opening; try again in a moment." };
    if (this.run) return { ok: false, status: 409, message: "The task is working; wait for it to finish or stop it first." };
    if (images.length > 0 && !session.model.supportsImages) return { ok: false, status: 400, message: imagesRefused(session.model.id) };
    if (text !== "" || images.length > 0) this.publish({ type: "web_user_message", text, ...(images.length > 0 ? { images: images.length } : {}) });
    // After a stop the model is told so, as the terminal UI tells it, then gets the message.
    const message = this.lastResult === "error_aborted" ? afterStop(text) : text;
    const generator = this.firstRunDone ? session.task.continue(message, images) : session.firstRun(text, images);
    this.firstRunDone = true;
    this.run = this.drive(generator);
    return { ok: true };
  }

  /** Act or Plan for the next run; refused while one runs (the mode of a running turn does not change under it). */
  setMode(mode: Mode): Answer {
    if (!this.session) return { ok: false, status: 409, message: "The task is still opening; try again in a moment." };
    if (this.run) return { ok: false, status: 409, message: "The task is working; switch modes when it has finished or is stopped." };
    this.session.task.setMode(mode);
    this.publish({ type: "web_mode", mode });
    return { ok: true };
  }

  approve(tool_use_id: string, response: ApprovalResponse): Answer {
    const resolve = this.approvals.get(tool_use_id);
    if (!resolve) return { ok: false, status: 409, message: "That call is not waiting for approval any more (answered in another tab, or the task stopped)." };
    this.approvals.delete(tool_use_id);
    resolve(response);
    return { ok: true };
  }

  answer(text: string): Answer {
    const question = this.question;
    if (!question) return { ok: false, status: 409, message: "The task is not waiting for an answer." };
    this.question = undefined;
    this.publish({ type: "web_answered", tool_use_id: this.lastQuestionId ?? "", answer: text });
    question.resolve(text);
    return { ok: true };
  }

  /** The person's answer to a plan (approve, or feedback) or to whether to go on. */
  answerPrompt(approved: boolean, feedback: string | undefined): Answer {
    const resolve = this.prompt;
    if (!resolve) return { ok: false, status: 409, message: "The task is not waiting for a plan approval or a go-ahead." };
    this.prompt = undefined;
    const answer = { approved, ...(feedback ? { feedback } : {}) };
    this.publish({ type: "web_prompt_answered", ...answer });
    resolve(answer);
    return { ok: true };
  }

  stop(): void {
    this.session?.task.abort();
  }

  /** Every run's events go to the log as they come; the run keeps going whoever is watching. */
  private async drive(run: AsyncGenerator<AgentEvent, TaskResult>): Promise<TaskResult | undefined> {
    this.publish({ type: "web_run", running: true });
    try {
      let next = await run.next();
      while (!next.done) {
        const event = next.value;
        if (event.type === "question") this.lastQuestionId = event.tool_use_id;
        this.publish(event);
        next = await run.next();
      }
      this.lastResult = next.value.subtype;
      return next.value;
    } catch (error) {
      this.publish({ type: "error", message: (error as Error).message ?? String(error), kind: "web_host" });
      return undefined;
    } finally {
      this.run = undefined;
      this.publish({ type: "web_run", running: false });
    }
  }

  private waitForApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> {
    const id = request.tool_use_id;
    return new Promise((resolve) => {
      const onAbort = () => {
        this.approvals.delete(id);
        resolve({ approved: false, feedback: "The task was stopped." });
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.approvals.set(id, (response) => {
        signal.removeEventListener("abort", onAbort);
        resolve(response);
      });
    });
  }

  private waitForAnswer(signal: AbortSignal): Promise<string | undefined> {
    return new Promise((resolve) => {
      const onAbort = () => {
        this.question = undefined;
        resolve(undefined);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.question = {
        resolve: (answer) => {
          signal.removeEventListener("abort", onAbort);
          resolve(answer);
        },
      };
    });
  }

  private waitForPrompt(kind: "plan" | "continue", text: string, signal: AbortSignal): Promise<{ approved: boolean; feedback?: string }> {
    return new Promise((resolve) => {
      const onAbort = () => {
        this.prompt = undefined;
        resolve({ approved: false });
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.prompt = (answer) => {
        signal.removeEventListener("abort", onAbort);
        resolve(answer);
      };
      this.publish({ type: "web_prompt", kind, text });
    });
  }

  async close(): Promise<void> {
    this.stop();
    await this.run;
    await this.session?.task.endSession("other").catch(() => {});
    await this.session?.close();
  }
}
