import type { AgentEvent } from "../events/index.js";
import type { ImagePart } from "../model/types.js";
import type { Mode } from "../policy/mode.js";
import type { Host } from "../runtime/host.js";
import type { TaskResult } from "../runtime/task-options.js";
import { removeFromHistoryIndex } from "../storage/history.js";
import type { TaskStore } from "../storage/task-store.js";
import { drainRun } from "./drain.js";
import { openSession, resumeSession, type OpenSessionOptions, type Session } from "./open-session.js";
import { restoreCheckpoint, type CheckpointRestore } from "./restore-checkpoint.js";
import { resumeMessage, type ResumedState } from "./resumed-state.js";
import { SessionError } from "./session-error.js";
import { afterStop } from "./stop-note.js";

/** What every way of opening a runner shares: openSession's options for the host (settings, host callbacks, editor additions, hooks). */
export type RunnerOptions = Omit<OpenSessionOptions, "cwd" | "title" | "parent" | "subagent">;

/** What `restore` did: the checkpoint's number, the files' outcome (when files were restored), the messages kept (when the conversation was cut). */
export type RunnerRestore = CheckpointRestore;

/**
 * One person's session with a task, for any host (the terminal UI, `cairn run`, the editor, the
 * web page, an SDK program): it opens or resumes the task, words each message for how the task
 * was left (a resume, after a stop), claims the store, drains the run, follows `new_task`
 * hand-offs into fresh tasks, and runs SessionEnd on close. Hosts render its events (subscribe)
 * and answer its Host callbacks; none decides any of this.
 *
 * Besides the task's own events it emits session_opened, user_message, awaiting/answered (around
 * the Host's reviewPlan, confirmContinue, confirmNewTask and ask), handoff, restored and
 * system/mode, all through the task's own event path: journaled in events.jsonl and replayed.
 */
export class SessionRunner {
  private current: Session | undefined;
  private unsubscribeTask: (() => void) | undefined;
  private readonly listeners = new Set<(event: AgentEvent) => void>();
  /** Every event so far (a stored task's record first), for subscribers that join late (replay). */
  private readonly history: AgentEvent[] = [];
  /** A stored task opened but not carried on yet: its first message is worded for how it was left. */
  private pendingResume: ResumedState | undefined;
  /** A fresh task's title, when the host gives one (else its first message). */
  private title: string | undefined;
  /** The store a fresh task is handed over from (stored linked to it). */
  private handedOverFrom: TaskStore | undefined;
  private lastResult: TaskResult | undefined;
  /** The conversation was cut back by a restore: the next message says the task was stopped and carried on. */
  private restoredConversation = false;
  private pendingMode: Mode | undefined;
  /** The mode before any task exists (fresh), as the person chose it. */
  private chosenMode: Mode | undefined;
  private readonly overrides: NonNullable<RunnerOptions["overrides"]>;
  private runPromise: Promise<unknown> | undefined;
  private stopped = false;
  private closed = false;
  /** Calls waiting for the person, by kind, to link answers to them (new_task's card, a question's). */
  private lastCall: { new_task?: string; question?: string } = {};

  private constructor(
    private readonly options: RunnerOptions,
    private readonly cwd: string | undefined,
  ) {
    this.overrides = { ...options.overrides };
  }

  /**
   * A runner with no task yet: the first `send` opens one in `cwd` (linked to `handedOverFrom` when
   * it carries that task on), titled `title` or else by the first message.
   */
  static fresh(o: RunnerOptions & { cwd: string; title?: string; handedOverFrom?: TaskStore }): SessionRunner {
    const { cwd, title, handedOverFrom, ...options } = o;
    const runner = new SessionRunner(options, cwd);
    runner.handedOverFrom = handedOverFrom;
    runner.title = title;
    return runner;
  }

  /**
   * A task stored now, before any message (an editor's session/new): `resume` finds it by id from
   * another process; its first message is a run, not a resume. Until then `cairn history` does not list it.
   */
  static async create(o: RunnerOptions & { cwd: string; title?: string }): Promise<SessionRunner> {
    const { cwd, title, ...options } = o;
    const runner = new SessionRunner(options, cwd);
    await runner.adopt(await openSession({ ...runner.openOptions(), cwd, title: title ?? "" }));
    return runner;
  }

  /** A stored task, ready to carry on; its recorded events are the start of `subscribe(..., { replay: true })`. */
  static async resume(o: RunnerOptions & { id: string; cwd?: string }): Promise<SessionRunner> {
    const { id, cwd, ...options } = o;
    const runner = new SessionRunner(options, cwd);
    const session = await resumeSession({ ...runner.openOptions(), id, ...(cwd ? { cwd } : {}) });
    runner.history.push(...(session.resumed?.events ?? []));
    runner.pendingResume = session.resumed;
    await runner.adopt(session);
    return runner;
  }

  /** Every event from now on; `replay`: the events so far first (a stored task's record, then this session's). Returns an unsubscribe function. */
  subscribe(listener: (event: AgentEvent) => void, o?: { replay?: boolean }): () => void {
    if (o?.replay) for (const event of this.history) listener(event);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The task's session (settings, store, checkpoints), once there is a task. */
  get session(): Session | undefined {
    return this.current;
  }

  /** The task's id, once there is a task (after a hand-off: the new task's). */
  get id(): string | undefined {
    return this.current?.id;
  }

  /** A message is being worked on (its run, or a chain of hand-offs). */
  get running(): boolean {
    return this.runPromise !== undefined;
  }

  /** The task's mode (a switch asked for during a run applies after it). */
  get mode(): Mode {
    return this.current?.task.snapshot().mode ?? this.chosenMode ?? this.overrides.mode ?? "act";
  }

  /**
   * The person's message: the task's first run (opening it if needed), or its next, worded for how
   * it was left (a stored task's resume wording, the note after a stop). A `new_task` the task
   * hands over with is followed into fresh tasks. Resolves with the last task's result.
   */
  async send(text: string, images?: readonly ImagePart[]): Promise<TaskResult> {
    if (this.closed) throw new Error("This session is closed.");
    if (this.runPromise) throw new Error("This task is already running; wait for it to finish or stop it.");
    this.stopped = false;
    const work = this.work(text, images);
    this.runPromise = work;
    try {
      return await work;
    } finally {
      this.runPromise = undefined;
      const pending = this.pendingMode;
      this.pendingMode = undefined;
      if (pending && !this.closed) this.setMode(pending);
    }
  }

  /** Stops the run (it ends with error_aborted) and any hand-off still opening. */
  stop(): void {
    if (!this.runPromise) return;
    this.stopped = true;
    this.current?.task.abort();
  }

  /** Plan or Act: now when idle, after the run when running (emits system/mode when applied). */
  setMode(mode: Mode): void {
    if (this.runPromise) {
      this.pendingMode = mode === this.mode ? undefined : mode;
      return;
    }
    if (mode === this.mode) return;
    const event: AgentEvent = { type: "system", subtype: "mode", mode, reason: "the person switched" };
    if (!this.current) {
      this.chosenMode = mode;
      this.deliver(event);
      return;
    }
    this.current.task.setMode(mode);
    this.current.store.update({ mode });
    this.current.task.publish(event);
  }

  /**
   * Takes the task back to a checkpoint (its number from 1, or the start of its hash): its files
   * (the files as they are are saved first, as the way back; files Cairn never touched are kept
   * unless `untouched: "restore"`), its conversation (cut to the checkpoint's message_index; the
   * next message tells the model it was stopped), or both. Not while running. Emits `restored`.
   */
  async restore(checkpoint: number | string, what: "files" | "conversation" | "both", o?: { untouched?: "keep" | "restore" }): Promise<RunnerRestore> {
    if (this.runPromise) throw new SessionError("Restore waits for the run to end: stop it first.");
    const session = this.current;
    if (!session) throw new SessionError("No task yet: checkpoints are made as the task changes files.");
    const records = session.store.metadata().checkpoints;
    const target =
      typeof checkpoint === "number" ? records[checkpoint - 1] : records.find((r) => checkpoint.length >= 4 && r.hash.startsWith(checkpoint));
    if (!target) throw new SessionError(`No checkpoint ${JSON.stringify(String(checkpoint))} in task ${session.id}: it has ${records.length}, numbered from 1.`);
    const done = await restoreCheckpoint({
      store: session.store,
      checkpoints: session.checkpoints,
      checkpoint: records.indexOf(target) + 1,
      what,
      untouched: o?.untouched ?? "keep",
      messages: session.task.snapshot().messages,
      cut: (kept) => session.task.restore(kept),
      publish: (event) => session.task.publish(event),
    });
    if (done.messagesKept !== undefined) {
      if (this.pendingResume) this.pendingResume = { ...this.pendingResume, meta: session.store.metadata() };
      this.restoredConversation = true;
    }
    return done;
  }

  /** The task goes on with another model (between runs; before the first, the task will open with it). */
  switchModel(id: string): void {
    if (this.runPromise) throw new SessionError("The model can change between runs: wait for this one to end or stop it.");
    this.overrides.model = id;
    if (!this.current) return;
    const next = this.current.withModel(id);
    this.follow(next);
  }

  /** Ends the session: a run still going is stopped, SessionEnd hooks run (their events go out as the task's), and what the session holds is let go. */
  async close(reason = "other"): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.runPromise) {
      this.stopped = true;
      this.current?.task.abort();
      await this.runPromise.catch(() => undefined);
    }
    const session = this.current;
    if (!session) return;
    try {
      await session.task.endSession(reason);
    } finally {
      this.unsubscribeTask?.();
      await session.close();
    }
  }

  private async work(text: string, images: readonly ImagePart[] | undefined): Promise<TaskResult> {
    let result = await this.drain(await this.firstRun(text, images));
    // new_task, agreed to (or a host without confirmNewTask): the fresh task starts at once from the
    // context alone; the chain's length is held by the tool (maxHandoffs), so this ends.
    while (result.new_task && !this.stopped && !this.closed) {
      const next = await this.handOver(result.new_task);
      if (!next) break;
      result = await this.drain(next);
    }
    this.lastResult = result;
    return result;
  }

  /** The run the person's message starts: run, continue, a resume's wording or the note after a stop. */
  private async firstRun(text: string, images: readonly ImagePart[] | undefined) {
    if (!this.current) {
      const parent = this.handedOverFrom ? { parent: { store: this.handedOverFrom, relation: "handoff" as const } } : {};
      const session = await openSession({ ...this.openOptions(), cwd: this.cwd!, title: this.title ?? text, ...parent });
      this.handedOverFrom = undefined;
      await this.adopt(session);
      this.userMessage(text, images);
      return session.task.run(text, images);
    }
    const { task, store } = this.current;
    const resumed = this.pendingResume;
    this.pendingResume = undefined;
    const restored = this.restoredConversation;
    this.restoredConversation = false;
    const aborted = this.lastResult?.subtype === "error_aborted";
    // A task stored before its first message (create): its first message starts it.
    if (task.snapshot().messages.length === 0) {
      if (resumed) store.claim();
      if (!store.metadata().title) store.update({ title: text.split("\n").find((l) => l.trim() !== "")?.trim().slice(0, 120) ?? "" });
      this.userMessage(text, images);
      return task.run(text, images);
    }
    this.userMessage(text, images);
    if (resumed) {
      store.claim();
      return task.continue(resumeMessage(resumed, this.mode, text || undefined), images);
    }
    if (aborted || restored) return task.continue(afterStop(text), images);
    return task.continue(text, images);
  }

  /** The fresh task `context` goes on in, opened linked to this one in its mode; the old one ends. Undefined when it could not open or the person stopped meanwhile. */
  private async handOver(context: string) {
    const from = this.current!;
    let next: Session;
    try {
      next = await openSession({
        ...this.openOptions(),
        cwd: from.settings.cwd,
        title: context,
        overrides: { ...this.overrides, mode: from.task.snapshot().mode },
        parent: { store: from.store, relation: "handoff" },
      });
    } catch (error) {
      from.task.publish({ type: "system", subtype: "notice", level: "warning", message: `The new task could not start: ${(error as Error).message.split("\n")[0]}` });
      return undefined;
    }
    // Stopped while it opened: nothing of a stopped turn takes effect, so the new task is not kept.
    if (this.stopped || this.closed) {
      await next.close();
      next.store.delete();
      removeFromHistoryIndex(next.settings.home, next.id);
      return undefined;
    }
    const handoff: AgentEvent = { type: "handoff", from_task_id: from.id, task_id: next.id, context };
    await from.task.endSession("other").catch(() => undefined);
    from.task.publish(handoff);
    // The new task's record starts from where it came from too.
    next.store.event(handoff);
    await from.close();
    await this.adopt(next);
    return next.task.run(context);
  }

  /** The one drain loop: the events reach subscribers through the task; this pulls the run to its result. */
  private drain(run: AsyncGenerator<AgentEvent, TaskResult>): Promise<TaskResult> {
    // Stopped before the run began (while its task opened): it stops at its first event.
    return drainRun(run, () => {
      if (this.stopped) this.current?.task.abort();
    });
  }

  /** Follows `session` from now on and says it is open (session_opened). */
  private async adopt(session: Session): Promise<void> {
    this.follow(session);
    const meta = session.store.metadata();
    const resumed = session.resumed;
    session.task.publish({
      type: "session_opened",
      task_id: session.id,
      title: meta.title,
      cwd: session.settings.cwd,
      model: session.settings.model.id,
      provider: session.settings.model.provider,
      context_window: session.settings.model.info.contextWindow,
      mode: session.task.snapshot().mode,
      ...(resumed ? { resumed: { status: resumed.meta.status, interrupted: resumed.interrupted } } : {}),
    });
  }

  private follow(session: Session): void {
    this.unsubscribeTask?.();
    this.current = session;
    this.unsubscribeTask = session.task.subscribe((event) => this.deliver(event));
  }

  private userMessage(text: string, images: readonly ImagePart[] | undefined): void {
    if (text === "" && !images?.length) return;
    this.current!.task.publish({ type: "user_message", text, ...(images?.length ? { images: images.length } : {}) });
  }

  private deliver(event: AgentEvent): void {
    if (event.type === "tool_call" && event.name === "new_task") this.lastCall.new_task = event.tool_use_id;
    if (event.type === "question") this.lastCall.question = event.tool_use_id;
    this.remember(event);
    for (const listener of this.listeners) listener(event);
  }

  /**
   * Kept for replay. What only streams goes once its whole is there: a message's deltas once its
   * complete `assistant` event has come, a call's live output once the call has ended (its result has it).
   */
  private remember(event: AgentEvent): void {
    const drop = (gone: (e: AgentEvent) => boolean) => {
      for (let i = this.history.length - 1; i >= 0; i--) if (gone(this.history[i]!)) this.history.splice(i, 1);
    };
    if (event.type === "assistant") {
      const id = event.message.id;
      drop((e) => (e.type === "text_delta" || e.type === "reasoning_delta" || e.type === "message_start" || e.type === "stream_discarded") && e.message_id === id);
    }
    if (event.type === "tool_call_update" && "content" in event) drop((e) => e.type === "tool_output" && e.tool_use_id === event.tool_use_id);
    this.history.push(event);
  }

  private announce(event: AgentEvent): void {
    if (this.current) this.current.task.publish(event);
    else this.deliver(event);
  }

  private openOptions() {
    const host = this.options.host ? this.wrapHost(this.options.host) : undefined;
    const mode = this.chosenMode ?? this.overrides.mode;
    return { ...this.options, overrides: { ...this.overrides, ...(mode ? { mode } : {}) }, ...(host ? { host } : {}) };
  }

  /** The host's callbacks, each announced as awaiting and answered (approvals have their own tool_call_update; questions their question event). */
  private wrapHost(host: Host): Host {
    // approve as the host's own: a class's methods are not own properties, so a spread would drop it.
    const wrapped: Host = host.approve ? { approve: host.approve.bind(host) } : {};
    // A callback that fails is answered "no" (the task takes it so); one with no answer (ask: nobody can answer now) is not answered.
    const around = async <T>(awaiting: AgentEvent | undefined, ask: () => Promise<T>, answered: (answer: T | undefined) => AgentEvent | undefined): Promise<T> => {
      if (awaiting) this.announce(awaiting);
      let answer: T | undefined;
      try {
        answer = await ask();
        return answer;
      } finally {
        const event = answered(answer);
        if (event) this.announce(event);
      }
    };
    if (host.ask) {
      const ask = host.ask.bind(host);
      wrapped.ask = (question, options, signal) =>
        around(undefined, () => ask(question, options, signal), (text) => (text === undefined ? undefined : { type: "answered", kind: "question", text, ...this.callId("question") }));
    }
    if (host.reviewPlan) {
      const review = host.reviewPlan.bind(host);
      wrapped.reviewPlan = (plan, signal, estimate) =>
        around(
          { type: "awaiting", kind: "plan", text: plan, ...(estimate ? { estimate } : {}) },
          () => review(plan, signal, estimate),
          (r) => ({ type: "answered", kind: "plan", approved: r?.approved === true, ...(r?.feedback ? { text: r.feedback } : {}), ...(r?.approved && r.budgetUsd !== undefined ? { budget_usd: r.budgetUsd } : {}) }),
        );
    }
    if (host.confirmContinue) {
      const confirm = host.confirmContinue.bind(host);
      wrapped.confirmContinue = (reason, signal) =>
        around({ type: "awaiting", kind: "continue", text: reason }, () => confirm(reason, signal), (goOn) => ({ type: "answered", kind: "continue", approved: goOn === true }));
    }
    if (host.confirmNewTask) {
      const confirm = host.confirmNewTask.bind(host);
      wrapped.confirmNewTask = (context, signal) =>
        around({ type: "awaiting", kind: "handoff", text: context, ...this.callId("new_task") }, () => confirm(context, signal), (r) => ({
          type: "answered",
          kind: "handoff",
          approved: r?.approved === true,
          ...(r?.approved ? { text: r.context } : r?.feedback ? { text: r.feedback } : {}),
          ...this.callId("new_task"),
        }));
    }
    return wrapped;
  }

  private callId(kind: "new_task" | "question"): { tool_use_id?: string } {
    const id = this.lastCall[kind];
    return id ? { tool_use_id: id } : {};
  }
}
