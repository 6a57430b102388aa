import path from "node:path";
import {
  cairnHome,
  historyRows,
  ImageAttachmentError,
  imagesRefused,
  listTasks,
  loadImageAttachment,
  parseSlashCommand,
  projectConfig,
  resolveSettings,
  SessionRunner,
  shownStatus,
  trustProjectConfig,
  type AgentEvent,
  type Mode,
  type ResolvedSettings,
  type Session,
} from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { overridesOf, type RunArgs } from "@cairn/host/run-args";
import { costText, statusWord } from "@cairn/host/task-status";
import { isUsageError } from "@cairn/host/usage-error";
import { InteractiveHost } from "./interactive-host.js";
import { pastedImagePath } from "./pasted-image.js";
import { EventPresenter } from "./present-events.js";
import type { SessionView } from "./session-view.js";
import { availableCommands, runSlashCommand, type SlashCommand } from "./slash-commands.js";

/**
 * The interactive session: what is the terminal's around core's SessionRunner. The runner decides
 * how each message goes to the task (run, continue, resume, after a stop), follows hand-offs and
 * ends the session; this shows its events, answers its host callbacks through the view, and keeps
 * the keys, the trust prompt, the pick list, queued messages and attached pictures.
 */
export class SessionController {
  readonly host: InteractiveHost;
  private active: SessionRunner;
  private presenter: EventPresenter;
  private unsubscribe: () => void;
  private run: Promise<void> | undefined;
  /** A reopened task not carried on yet: Enter alone carries it on. */
  private carryOn = false;
  private exitArmedUntil = 0;
  private exitRequested = false;
  private readonly exitListeners = new Set<() => void>();
  /** Slash commands offered for completion: the built-in ones and the workspace's workflows. */
  readonly commands: SlashCommand[];
  readonly cwd: string;

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
    this.active = SessionRunner.fresh({ ...this.runnerOptions(), cwd: this.args.cwd });
    this.presenter = new EventPresenter(view);
    this.unsubscribe = this.follow(this.runner);
  }

  /** The session with the task (or, before the first message, with none yet). */
  get runner(): SessionRunner {
    return this.active;
  }

  get running(): boolean {
    return this.run !== undefined;
  }

  /** The task's session, once there is a task. */
  get opened(): Session | undefined {
    return this.runner.session;
  }

  get home(): string {
    return cairnHome(this.io.env);
  }

  private runnerOptions() {
    return { env: this.io.env, overrides: { ...overridesOf(this.args), mode: this.view.status.mode }, host: this.host };
  }

  /** Shows `runner`'s events from now on; a stored task's record first, as a replay of where it stopped. */
  private follow(runner: SessionRunner, replay = false): () => void {
    const stored: AgentEvent[] = [];
    let replaying = replay;
    const unsubscribe = runner.subscribe(
      (event) => {
        if (replaying) return void stored.push(event);
        if (event.type === "session_opened") this.opening();
        this.presenter.apply(event);
      },
      { replay },
    );
    replaying = false;
    if (replay) {
      this.opening();
      this.presenter.replay(stored, this.opened?.resumed?.interrupted === true);
    }
    return unsubscribe;
  }

  /** A task opened (the first message's, a hand-off's, a resumed one): the status line follows it. */
  private opening(): void {
    const { status, live } = this.view;
    const settings = this.runner.session?.settings;
    if (settings) {
      // The task's own model: another one when /settings changed it since the session began.
      status.provider = settings.model.provider;
      status.model = settings.model.id;
      status.contextWindow = settings.model.info.contextWindow;
    }
    status.checkpoints = this.runner.session?.store.metadata().checkpoints.length ?? 0;
    status.contextTokens = 0;
    status.costUsd = null;
    if (live.busy?.label === "starting") live.busy = { ...live.busy, label: "working" };
  }

  /** What happens first: the task from the command line, or a pick list of tasks to resume. */
  async start(): Promise<void> {
    await this.askTrust();
    if (this.args.task !== "") return this.submit(this.args.task);
    const { entries } = listTasks(this.home, { workspace: this.cwd });
    if (entries.length > 0) await this.pickTask("Resume a recent task, or start a new one", entries, true, 12);
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
      this.runner.stop();
      await Promise.race([this.run, new Promise((r) => setTimeout(r, 5000).unref())]);
    }
    // A tool that ignores the stop keeps the run going: the process leaves without waiting for it.
    if (!this.run) await this.closeRunner("prompt_input_exit");
    this.unsubscribe();
    this.presenter.flushReply();
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
      this.runner.stop();
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

  /** Plan or Act: the runner switches now, or after the run (the status line shows it pending until then). */
  setMode(mode: Mode): void {
    const { status } = this.view;
    this.runner.setMode(mode);
    if (this.run) {
      status.pendingMode = mode === status.mode ? undefined : mode;
      this.view.setHint(status.pendingMode ? `Switching to ${mode.toUpperCase()} when this turn ends.` : `Staying in ${mode.toUpperCase()}.`);
      return;
    }
    status.mode = mode;
    status.pendingMode = undefined;
    this.view.changed();
  }

  /** A line the person sent: a slash command, or a message for the task. */
  async submit(raw: string): Promise<void> {
    const text = raw.trim();
    if (text === "" && !this.carryOn) return;
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

  /** Sends a message (with the pictures attached since the last one) and shows the run to its end; then the next queued message. */
  private async send(message: string): Promise<void> {
    const { view } = this;
    this.carryOn = false;
    const attached = view.attached.splice(0);
    this.presenter.attachedNames = attached.map((a) => a.name);
    this.exitArmedUntil = 0;
    view.live.busy = { since: Date.now(), label: this.opened ? "working" : "starting" };
    view.live.stopping = false;
    view.changed();
    let finished!: () => void;
    this.run = new Promise((resolve) => (finished = resolve));
    try {
      await this.runner.send(message, attached.map((a) => a.image));
    } catch (error) {
      // A task that could not open says why in its own words; a run that failed says so.
      const text = String((error as Error).message ?? error);
      view.add({ kind: "error", text: !this.opened || isUsageError(error) ? text : `The run failed: ${text}` });
    } finally {
      this.presenter.flushReply();
      view.live.busy = undefined;
      view.live.stopping = false;
      view.live.tools = [];
      view.live.streamingCall = undefined;
      view.status.pendingMode = undefined;
      view.status.mode = this.runner.mode;
      if (this.opened) view.status.checkpoints = this.opened.store.metadata().checkpoints.length;
      this.run = undefined;
      finished();
      if (!this.exitRequested) view.setHint(undefined);
      view.changed();
    }
    if (this.exitRequested) return;
    const queued = view.queued.shift();
    if (queued !== undefined) await this.send(queued);
  }

  /**
   * Shows the `limit` most recent tasks of `entries`, each task's sub-agents and hand-offs under it,
   * in the words cairn history uses (one whose process died is interrupted); the one picked is
   * reopened. `allWorkspaces`: each names its workspace.
   */
  async pickTask(title: string, entries: ReturnType<typeof listTasks>["entries"], offerNew: boolean, limit = 15, allWorkspaces = false): Promise<void> {
    const options = historyRows(entries, limit).map(({ entry: e, depth }) => {
      const status = shownStatus(e);
      const cost = status === "running" ? "" : costText(e);
      return {
        label: `${depth > 0 ? `${"  ".repeat(depth - 1)}↳ ${e.parent?.relation === "subagent" ? "sub-agent: " : "handed over: "}` : ""}${e.title || "(untitled)"}`,
        value: e.id,
        hint: [statusWord(status), e.updatedAt.slice(0, 16).replace("T", " "), `${e.turns} turn${e.turns === 1 ? "" : "s"}`, cost, allWorkspaces && depth === 0 ? e.workspace : ""].filter(Boolean).join(" · "),
      };
    });
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
    let runner: SessionRunner;
    try {
      runner = await SessionRunner.resume({ ...this.runnerOptions(), id });
    } catch (error) {
      this.view.add({ kind: "error", text: (error as Error).message });
      return;
    }
    await this.switchTo(runner, true);
    this.carryOn = true;
    const resumed = runner.session!.resumed!;
    const meta = resumed.meta;
    const how = statusWord(resumed.interrupted ? "interrupted" : meta.status);
    this.view.add({ kind: "notice", level: "info", text: `Resumed task ${meta.id} (${how}): ${meta.title}. Type a message, or press Enter to carry on.` });
    // Left waiting for the person: asked again now, the answer carrying the task on.
    if (resumed.plan) {
      const review = await this.host.reviewPlan(resumed.plan, new AbortController().signal, resumed.planEstimate);
      if (review.approved) {
        if (review.budgetUsd !== undefined) {
          runner.session!.task.agreeBudget(review.budgetUsd);
          this.view.status.budgetUsd = review.budgetUsd;
        }
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

  /** Switches the task to another model between runs (before the first, the task opens with it). */
  switchModel(model: string): void {
    this.runner.switchModel(model);
    this.args.model = model;
    const settings = this.opened?.settings.model;
    this.view.status.model = settings?.id ?? model;
    if (settings) this.view.status.contextWindow = settings.info.contextWindow;
    this.view.add({ kind: "notice", level: "info", text: settings ? `Now using ${settings.provider}/${settings.id}.` : `The task will use ${model}.` });
  }

  /** Ends the current task's session (SessionEnd hooks) and starts over with no task (it stays stored). */
  async clear(): Promise<void> {
    await this.switchTo(SessionRunner.fresh({ ...this.runnerOptions(), cwd: this.args.cwd }));
    this.view.status.taskId = undefined;
    this.opening();
    this.view.changed();
  }

  /** Follows `runner` from now on; the one before ends (its SessionEnd hooks run). */
  private async switchTo(runner: SessionRunner, replay = false): Promise<void> {
    this.unsubscribe();
    await this.closeRunner(replay ? "other" : "clear");
    this.active = runner;
    this.presenter = new EventPresenter(this.view);
    this.unsubscribe = this.follow(runner, replay);
  }

  private async closeRunner(reason: string): Promise<void> {
    try {
      await this.runner.close(reason);
    } catch (error) {
      this.view.add({ kind: "notice", level: "warning", text: `SessionEnd hooks failed: ${(error as Error).message.split("\n")[0]}` });
    }
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
