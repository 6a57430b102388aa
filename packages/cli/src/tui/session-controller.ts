import path from "node:path";
import {
  cairnHome,
  ImageAttachmentError,
  imagesRefused,
  listTasks,
  loadImageAttachment,
  openSession,
  parseSlashCommand,
  projectConfig,
  resumeMessage,
  resolveSettings,
  resumeSession,
  trustProjectConfig,
  type AgentEvent,
  type ImagePart,
  type Mode,
  type ResolvedSettings,
  type ResumedState,
  type Session,
  type TaskResult,
} from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";
import { isUsageError } from "@cairn/host/usage-error";
import { afterStop } from "../stop-note.js";
import { InteractiveHost } from "./interactive-host.js";
import { imageChip, pastedImagePath } from "./pasted-image.js";
import { EventPresenter } from "./present-events.js";
import { replayOrder } from "./replay-order.js";
import type { SessionView } from "./session-view.js";
import { availableCommands, runSlashCommand, type SlashCommand } from "./slash-commands.js";

/**
 * The interactive session: opens tasks, runs them as the person types, answers the host callbacks
 * through the view, and handles stop/exit, modes and slash commands. It adds no agent logic: the
 * Task decides everything; this only starts runs and shows their events.
 */
export class SessionController {
  readonly host: InteractiveHost;
  opened: Session | undefined;
  private presenter: EventPresenter | undefined;
  private unsubscribe: (() => void) | undefined;
  /** A reopened task not yet carried on: the first message is worded for how it was left. */
  private resumed: ResumedState | undefined;
  /** The task the next one opened takes over from (new_task, /newtask): both are stored linked. */
  private handedOverFrom: Session["store"] | undefined;
  private lastResult: TaskResult | undefined;
  private run: Promise<void> | undefined;
  private exitArmedUntil = 0;
  private exitRequested = false;
  private readonly exitListeners = new Set<() => void>();
  /** Slash commands offered for completion: the built-in ones and the workspace's workflows. */
  readonly commands: SlashCommand[];
  private readonly cwd: string;

  constructor(
    readonly args: RunArgs,
    readonly io: Io,
    readonly view: SessionView,
    config: ResolvedSettings,
  ) {
    this.host = new InteractiveHost(view);
    this.cwd = config.cwd;
    this.commands = availableCommands(config.cwd, cairnHome(io.env));
    view.status.mode = args.mode ?? "act";
    view.status.provider = config.model.provider;
    view.status.model = config.model.id;
    view.status.contextWindow = config.model.info.contextWindow;
    view.status.yolo = args.yolo === true;
    view.add({
      kind: "banner",
      lines: [`cairn · ${config.model.provider}/${config.model.id} · ${config.cwd}`, "Enter: send · Alt+Enter or \\ at the end: new line · Shift+Tab: Plan/Act · /help"],
    });
  }

  get running(): boolean {
    return this.run !== undefined;
  }

  get home(): string {
    return cairnHome(this.io.env);
  }

  /** What happens first: the task from the command line, or a pick list of tasks to resume. */
  async start(): Promise<void> {
    await this.askTrust();
    if (this.args.task !== "") return this.submit(this.args.task);
    const { entries } = listTasks(this.home);
    if (entries.length > 0) await this.pickTask("Resume a recent task, or start a new one", entries.slice(0, 12), true);
  }

  /**
   * The workspace's hooks and MCP servers that the person has not trusted: shown and asked about
   * once, before anything loads them. "Not now" leaves them off for this session.
   */
  private async askTrust(): Promise<void> {
    const config = projectConfig({ home: this.home, cwd: this.cwd });
    const pending = config.files.filter((f) => !f.trusted);
    if (pending.length === 0) return;
    const lines = pending.flatMap((f) => [
      `${path.relative(config.workspace, f.file)}: ${f.what}${f.changed ? " (changed since you trusted it)" : ""}`,
      ...f.items.map((item) => `  ${item}`),
      ...(f.runs.length > 0 ? [`  workspace files they run: ${f.runs.join(", ")}`] : []),
    ]);
    this.view.add({ kind: "info", title: "This workspace has config that runs commands on your machine:", lines });
    const options = [
      { label: "Trust it", value: "trust", hint: "these run here from now on, until the files change" },
      { label: "Not now", value: "skip", hint: "they stay off this session; cairn trust later" },
    ];
    const answer = await this.view.ask<string | undefined>((resolve) => ({ kind: "choice", title: "Trust this workspace's config?", options, resolve }), undefined);
    if (answer === "trust") {
      trustProjectConfig(this.home, config);
      this.view.add({ kind: "notice", level: "info", text: "Trusted. Undo with: cairn trust --revoke" });
    } else {
      this.view.add({ kind: "notice", level: "warning", text: "Not trusted: its hooks and MCP servers stay off. Review and trust later with: cairn trust" });
    }
  }

  onExit(listener: () => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /** Leaves the session; a run still going is stopped first so the task is left resumable. */
  async exit(): Promise<void> {
    if (this.exitRequested) return;
    this.exitRequested = true;
    if (this.run) {
      this.opened?.task.abort();
      await Promise.race([this.run, new Promise((r) => setTimeout(r, 5000).unref())]);
    }
    await this.endSession("prompt_input_exit");
    this.unsubscribe?.();
    this.presenter?.flushReply();
    this.view.closing = true;
    this.view.changed();
    this.view.flush();
    // Let React draw the closing frame before ink unmounts.
    await new Promise((resolve) => setImmediate(resolve));
    for (const listener of this.exitListeners) listener();
  }

  /** Esc / Ctrl-C: the first press stops the turn, a second one (or one when idle, twice) leaves. */
  interrupt(): void {
    const { view } = this;
    const now = Date.now();
    if (this.run && !view.live.stopping) {
      view.live.stopping = true;
      this.opened?.task.abort();
      view.setHint("Stopping… press Esc or Ctrl-C again to leave.", 0);
      this.exitArmedUntil = now + 60_000;
      return;
    }
    if (now < this.exitArmedUntil) {
      void this.exit();
      return;
    }
    view.cancelPrompt();
    this.exitArmedUntil = now + 2000;
    view.setHint("Press Esc or Ctrl-C again to leave.", 2000);
  }

  toggleMode(): void {
    const { status } = this.view;
    this.setMode((status.pendingMode ?? status.mode) === "act" ? "plan" : "act");
  }

  setMode(mode: Mode): void {
    const { status } = this.view;
    if (this.run) {
      status.pendingMode = mode === status.mode ? undefined : mode;
      this.view.setHint(status.pendingMode ? `Switching to ${mode.toUpperCase()} when this turn ends.` : `Staying in ${mode.toUpperCase()}.`);
      return;
    }
    status.mode = mode;
    status.pendingMode = undefined;
    this.opened?.task.setMode(mode);
    this.view.changed();
  }

  /** A line the person sent: a slash command, or a message for the task. */
  async submit(raw: string): Promise<void> {
    const text = raw.trim();
    if (text === "" && !this.resumed) return;
    if (text.startsWith("/") && !text.startsWith("//")) {
      if (await runSlashCommand(this, text)) return;
      // Not ours: the task's own commands (/compact …, /smol, /newtask, /newrule, workflows) go to it.
      // A path such as /usr/bin/x at the start of a message is no command: it goes to the task as written.
      const command = parseSlashCommand(text, { cwd: this.cwd, home: this.home });
      if (command?.kind === "unknown") {
        this.view.add({ kind: "info", title: "Unknown command", lines: [`no workflow or command named /${command.name}; /help lists them`] });
        return;
      }
    }
    const message = text.startsWith("//") ? text.slice(1) : text;
    if (this.run) {
      this.view.queued.push(message);
      this.view.setHint("Queued: it is sent when this turn ends.");
      return;
    }
    if (message !== "") this.view.add({ kind: "user", text: this.withAttached(message) });
    await this.send(message);
  }

  /**
   * A paste that is the path of an image file attaches the picture, sent with the next message;
   * true when the paste was such a path (attached, or refused in one line), false when it is text.
   */
  pasted(text: string): boolean {
    const file = pastedImagePath(text, this.cwd);
    if (!file) return false;
    const name = path.basename(file);
    const model = this.answeringModel();
    if (model && !model.info.supportsImages) {
      this.view.add({ kind: "notice", level: "warning", text: `${name} not attached: ${imagesRefused(model.id)}` });
      return true;
    }
    try {
      this.view.attached.push({ name, image: loadImageAttachment(file) });
    } catch (error) {
      if (!(error instanceof ImageAttachmentError)) throw error;
      // Core words it for the --image flag; here the person pasted the path.
      this.view.add({ kind: "notice", level: "warning", text: `${name} not attached: ${error.message.replace(/^--image /, "")}` });
      return true;
    }
    this.view.changed();
    return true;
  }

  /** A message as the history shows it: with the pictures that go with it. */
  private withAttached(message: string): string {
    return [message, ...this.view.attached.map((a) => imageChip(a.name))].join("\n");
  }

  /** Backspace in an empty input takes the last attached picture off; true when there was one. */
  detachLast(): boolean {
    if (this.view.attached.length === 0) return false;
    this.view.attached.pop();
    this.view.changed();
    return true;
  }

  /** The model the next message goes to, or undefined when it cannot be known yet (the run will say). */
  private answeringModel() {
    if (this.opened) return this.opened.settings.model;
    try {
      return resolveSettings({ cwd: this.args.cwd, env: this.io.env, overrides: overridesOf(this.args) }).model;
    } catch {
      return undefined;
    }
  }

  private async send(message: string): Promise<void> {
    // The pictures attached since the last message go with this one (the run refuses them in one
    // line if the model does not take images).
    const images: ImagePart[] = this.view.attached.splice(0).map((a) => a.image);
    if (images.length > 0) this.view.changed();
    try {
      if (!this.opened) {
        const mode = this.view.status.mode;
        this.view.live.busy = { since: Date.now(), label: "starting" };
        this.view.changed();
        try {
          // Notices from opening it (untrusted config, checkpoints off, ...) arrive as events of the first run.
          const parent = this.handedOverFrom ? { parent: { store: this.handedOverFrom, relation: "handoff" as const } } : {};
          this.handedOverFrom = undefined;
          await this.adopt(await openSession({ cwd: this.args.cwd, env: this.io.env, overrides: { ...overridesOf(this.args), mode }, host: this.host, title: message, ...parent }));
        } finally {
          this.view.live.busy = undefined;
        }
        return this.drive(this.opened!.task.run(message, images));
      }
      const task = this.opened.task;
      if (this.resumed) {
        const resumed = this.resumed;
        this.resumed = undefined;
        this.opened.store.claim();
        return this.drive(task.continue(resumeMessage(resumed, this.view.status.mode, message || undefined), images));
      }
      if (this.lastResult?.subtype === "error_aborted") {
        return this.drive(task.continue(afterStop(message), images));
      }
      return this.drive(task.continue(message, images));
    } catch (error) {
      this.view.add({ kind: "error", text: isUsageError(error) ? error.message : String((error as Error).message ?? error) });
    }
  }

  /** Shows `opened` from now on; `sameTask` (another model for it) keeps what was decided for the task. */
  private async adopt(opened: Session, sameTask = false): Promise<void> {
    this.unsubscribe?.();
    if (this.opened && !sameTask && this.opened.mcp !== opened.mcp) await this.opened.close();
    this.opened = opened;
    if (!sameTask) {
      this.lastResult = undefined;
    }
    this.presenter = new EventPresenter(this.view);
    const presenter = this.presenter;
    this.unsubscribe = opened.task.subscribe((event: AgentEvent) => presenter.apply(event));
    const { status } = this.view;
    status.taskId = opened.store.id;
    status.model = opened.settings.model.id;
    status.provider = opened.settings.model.provider;
    status.contextWindow = opened.settings.model.info.contextWindow;
    status.checkpoints = opened.store.metadata().checkpoints.length;
    status.mode = opened.task.snapshot().mode;
    this.view.changed();
  }

  /** Runs one turn of the task to its result; events reach the view through the subscription. */
  private async drive(run: AsyncGenerator<AgentEvent, TaskResult>): Promise<void> {
    const { view } = this;
    this.exitArmedUntil = 0;
    view.live.busy = { since: Date.now(), label: "working" };
    view.live.stopping = false;
    view.changed();
    let finished!: () => void;
    this.run = new Promise((resolve) => (finished = resolve));
    try {
      let next = await run.next();
      while (!next.done) next = await run.next();
      this.lastResult = next.value;
    } catch (error) {
      view.add({ kind: "error", text: `The run failed: ${(error as Error).message}` });
    } finally {
      this.presenter?.flushReply();
      view.live.busy = undefined;
      view.live.stopping = false;
      view.live.tools = [];
      view.live.streamingCall = undefined;
      this.run = undefined;
      finished();
      if (!this.exitRequested) view.setHint(undefined);
      const pending = view.status.pendingMode;
      if (pending) this.setMode(pending);
      view.changed();
    }
    if (this.exitRequested) return;
    const handoff = this.lastResult?.new_task;
    if (handoff) {
      // /newtask: the essentials go to a fresh task in the same workspace, which starts now.
      const from = this.opened?.store;
      await this.clear();
      this.handedOverFrom = from;
      view.add({ kind: "info", title: "A fresh task carries this work on, starting from:", lines: handoff.split("\n") });
      await this.send(handoff);
      return;
    }
    const queued = view.queued.shift();
    if (queued !== undefined) {
      view.add({ kind: "user", text: this.withAttached(queued) });
      await this.send(queued);
    }
  }

  /** Shows recent tasks; the one picked is reopened. */
  async pickTask(title: string, entries: ReturnType<typeof listTasks>["entries"], offerNew: boolean): Promise<void> {
    const options = entries.map((e) => ({
      label: e.title || "(untitled)",
      value: e.id,
      hint: `${e.status} · ${e.updatedAt.slice(0, 16).replace("T", " ")} · ${e.turns} turn${e.turns === 1 ? "" : "s"} · ${e.workspace}`,
    }));
    if (offerNew) options.unshift({ label: "New task", value: "", hint: "type it below" });
    // With "New task" offered, typing starts it: the keys go to the input instead of being lost.
    const typing = (resolve: (answer: string | undefined) => void) => (text: string) => {
      resolve("");
      this.view.typeAhead(text);
    };
    const picked = await this.view.ask<string | undefined>((resolve) => ({ kind: "choice", title, options, ...(offerNew ? { onTyping: typing(resolve) } : {}), resolve }), undefined);
    if (!picked) return;
    await this.resume(picked);
  }

  /** Reopens a stored task in this session, showing where it stopped. */
  async resume(id: string): Promise<void> {
    if (this.run) return this.view.setHint("Wait for the turn to end (or press Esc) before switching tasks.");
    let opened: Session;
    try {
      opened = await resumeSession({ id, env: this.io.env, overrides: overridesOf(this.args), host: this.host });
    } catch (error) {
      this.view.add({ kind: "error", text: (error as Error).message });
      return;
    }
    await this.adopt(opened);
    const resumed = opened.resumed!;
    this.resumed = resumed;
    this.replay(resumed.events);
    const meta = resumed.meta;
    const how = resumed.interrupted ? "interrupted" : meta.status;
    this.view.add({ kind: "notice", level: "info", text: `Resumed task ${meta.id} (${how}): ${meta.title}. Type a message, or press Enter to carry on.` });
    if (resumed.plan) {
      const review = await this.host.reviewPlan(resumed.plan, new AbortController().signal);
      if (review.approved) {
        this.setMode("act");
        await this.send("");
      } else if (review.feedback) {
        await this.send(review.feedback);
      }
    } else if (resumed.question) {
      const answer = await this.host.ask(resumed.question.text, resumed.question.options, new AbortController().signal);
      if (answer !== undefined) await this.send(answer);
    }
  }

  /** The end of a stored task's record, so the person sees where it stopped. */
  private replay(events: AgentEvent[]): void {
    const presenter = new EventPresenter(this.view, { replay: true });
    const shown = replayOrder(events).filter((e) => e.type !== "usage" && e.type !== "checkpoint" && !(e.type === "system" && e.subtype === "init"));
    const replayed = shown.slice(-40);
    if (replayed.length < shown.length) this.view.add({ kind: "notice", level: "info", text: "… earlier events of this task are not shown (cairn show <id> lists them)." });
    for (const event of replayed) presenter.apply(event);
    presenter.flushReply();
    this.view.live.tools = [];
  }

  /** Switches the task to another model between runs. */
  switchModel(model: string): void {
    if (!this.opened) {
      this.args.model = model;
      this.view.status.model = model;
      this.view.add({ kind: "notice", level: "info", text: `The task will use ${model}.` });
      return;
    }
    const opened = this.opened.withModel(model);
    this.args.model = model;
    void this.adopt(opened, true);
    this.view.add({ kind: "notice", level: "info", text: `Now using ${opened.settings.model.provider}/${opened.settings.model.id}.` });
  }

  /** Ends the current task's session (SessionEnd hooks) and starts over with no task. */
  async clear(): Promise<void> {
    await this.endSession("clear");
    this.newTask();
  }

  private async endSession(reason: string): Promise<void> {
    try {
      await this.opened?.task.endSession(reason);
    } catch (error) {
      this.view.add({ kind: "notice", level: "warning", text: `SessionEnd hooks failed: ${(error as Error).message.split("\n")[0]}` });
    }
    if (this.opened) await this.opened.close();
  }

  /** Forgets the current task (it stays stored); the next message starts a new one. */
  newTask(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.opened = undefined;
    this.presenter = undefined;
    this.resumed = undefined;
    this.lastResult = undefined;
    const { status } = this.view;
    status.taskId = undefined;
    status.checkpoints = 0;
    status.contextTokens = 0;
    status.costUsd = null;
    this.view.changed();
  }

  /** Runs a slash-command job that takes a while, with the busy marker on. */
  async busy<T>(label: string, job: () => Promise<T>): Promise<T | undefined> {
    const { view } = this;
    view.live.busy = { since: Date.now(), label };
    view.changed();
    try {
      return await job();
    } catch (error) {
      view.add({ kind: "error", text: `${label} failed: ${(error as Error).message.split("\n")[0]}` });
      return undefined;
    } finally {
      view.live.busy = undefined;
      view.changed();
    }
  }
}
