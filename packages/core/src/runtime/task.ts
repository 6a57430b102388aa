import { randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defaultRetryPolicy } from "../model/retry.js";
import type { ImagePart, Message, Model } from "../model/types.js";
import type { ApprovalSettings } from "../policy/approval.js";
import type { ActiveRule } from "../policy/decide-call.js";
import { IgnoreRules } from "../policy/ignore-rules.js";
import { preloadShellParser, ScriptBaseline } from "../policy/command/index.js";
import { checkForLoop, defaultLoopSettings, loopWarning, type CallRecord } from "../policy/loop-detection.js";
import { imagesRefused } from "../prompt/image-attachment.js";
import { parseSlashCommand, unknownCommandText } from "../prompt/slash-commands.js";
import { noToolNudge } from "../prompt/system-prompt.js";
import { protocolFor } from "../protocol/index.js";
import type { Mode } from "../tools/tool.js";
import { Channel } from "./channel.js";
import { Conversation } from "./conversation.js";
import { writeHandoff } from "./handoff.js";
import { ContextFit } from "./context-fit.js";
import { estimateMessagesTokens } from "../context/token-count.js";
import { defaultFocusChainSettings, FocusChain } from "./focus-chain.js";
import type { CallEnv, ExecutedCall } from "./execute-call.js";
import type { AgentEvent, ResultSubtype } from "../events/index.js";
import type { TaskState } from "../storage/task-journal.js";
import { describeJournalFailure, guardJournal, type JournalFailure } from "./guarded-journal.js";
import type { PendingResult } from "../storage/task-journal.js";
import { repairInterrupted } from "./resume.js";
import { StepCheckpoints, touchedBy } from "./step-checkpoints.js";
import { answerControls } from "./step-controls.js";
import { composeHooks, permissionMode, shellHooks } from "../hooks/index.js";
import { TaskHooks } from "./task-hooks.js";
import { mistakeLimitReached, nextMistakeCount, noToolReason, turnLimitReached } from "./stop-conditions.js";
import type { TaskOptions, TaskResult, TaskSnapshot, Transition } from "./task-options.js";
import { TaskTools } from "./task-tools.js";
import { TaskPrompt } from "./task-prompt.js";
import { TaskSpend } from "./task-spend.js";
import { estimatePlan, type PlanEstimate } from "./plan-estimate.js";
import { RunProcesses } from "./run-processes.js";
import { RequestTools } from "./request-tools.js";
import { RunRecord, statusOf, type Run } from "./run-record.js";
import { assistantEvent, runTurn } from "./turn.js";
import { usageJson } from "./usage-json.js";
import { userText } from "./user-text.js";

export type { TaskOptions, TaskResult, TaskSnapshot, Transition } from "./task-options.js";

/** TaskOptions with the optional groups filled in, so reads need no `?.` on the group. */
type GroupedOptions = Required<Omit<TaskOptions, "host" | "notices">> & Pick<TaskOptions, "host">;

/** Where a budget agreed with an approved plan came from, as the stop message names it. */
const agreedWithPlan = "agreed with the plan";

/**
 * A coding task: a conversation with a model that acts through tools until it calls
 * attempt_completion. `run` and `continue` stream AgentEvents and return the result.
 */
export class Task {
  readonly sessionId: string;
  readonly cwd: string;
  private mode: Mode;
  private readonly conversation: Conversation;
  private readonly options: GroupedOptions;
  private readonly tools: TaskTools;
  private readonly listeners = new Set<(event: AgentEvent) => void>();
  private controller = new AbortController();
  private running = false;
  private turns = 0;
  private readonly spend: TaskSpend;
  /** USD the whole task may cost (--max-budget-usd), or as agreed with an approved plan since. */
  private budget: { usd: number; from: string } | undefined;
  private readonly ignore: IgnoreRules;
  private readonly callHistory: CallRecord[] = [];
  /** The "always allow" rules in force; the person's "always allow" adds to them. */
  private readonly policyState: { rules: ActiveRule[] };
  private pendingResults: PendingResult[] | undefined;
  /** Notices from opening the task, not yet in the event stream. */
  private openingNotices: string[];
  private readonly stepCheckpoints: StepCheckpoints;
  private readonly hooks: TaskHooks;
  private readonly context: ContextFit;
  private readonly prompt: TaskPrompt;
  private readonly requestTools = new RequestTools();
  /** The model's checklist of the task (task_progress). */
  private readonly focus: FocusChain;
  private readonly scratchDir: string;
  private readonly processes: RunProcesses;
  /** The workspace's script files (package.json scripts, Makefiles) as the task began. */
  private readonly scripts: ScriptBaseline;
  /** The journal could not be written (a full disk): the run stops cleanly and says where. */
  private journalFailure: JournalFailure | undefined;

  constructor(options: TaskOptions) {
    const journal = options.journal ?? {};
    this.options = {
      policy: {},
      limits: {},
      hooks: {},
      ...options,
      journal: journal.store ? { ...journal, store: guardJournal(journal.store, (failure) => this.stopForJournal(failure)) } : journal,
    };
    this.sessionId = journal.sessionId ?? randomUUID();
    this.stepCheckpoints = new StepCheckpoints(options.workspace.checkpoints, this.options.journal.store, () => this.conversation.length);
    this.cwd = realpathSync.native(options.workspace.cwd);
    this.mode = options.policy?.mode ?? "act";
    this.conversation = new Conversation(this.options.journal.store, journal.messages);
    this.pendingResults = journal.pendingResults;
    this.openingNotices = [...(options.notices ?? [])];
    // One Hooks for the loop: the program's own first, then the shell hooks of settings, as they always ran.
    const runner = options.hooks?.runner;
    const transcriptPath = options.hooks?.transcriptPath;
    const session = () => ({
      sessionId: this.sessionId,
      cwd: this.cwd,
      permissionMode: permissionMode({ mode: this.mode, yolo: options.policy?.yolo === true }),
      ...(transcriptPath ? { transcriptPath } : {}),
    });
    this.hooks = new TaskHooks(composeHooks([options.hooks?.loop, runner ? shellHooks(runner, session) : undefined]), Boolean(journal.messages?.length));
    this.context = new ContextFit({ compactionModel: options.model.compaction, strategy: options.limits?.compaction ?? "auto" });
    this.spend = new TaskSpend(journal.prior);
    if (options.limits?.maxBudgetUsd !== undefined) this.budget = { usd: options.limits.maxBudgetUsd, from: "--max-budget-usd" };
    // A budget agreed with the plan in an earlier run holds, unless this run's is tighter.
    const agreed = journal.prior?.agreedBudgetUsd;
    if (agreed !== undefined && !(this.budget !== undefined && this.budget.usd <= agreed)) this.budget = { usd: agreed, from: agreedWithPlan };
    this.policyState = options.policy?.shared ?? { rules: [...(options.policy?.rules ?? [])] };
    this.turns = journal.prior?.turns ?? 0;
    this.tools = new TaskTools(options.tools.list, options.tools.mcp);
    this.ignore = new IgnoreRules(this.cwd);
    // Sub-agents share the parent's, so scripts the parent changed are changed for them too.
    const shared = options.policy?.shared;
    const scripts = shared?.scripts ?? new ScriptBaseline(this.cwd, journal.prior?.startedAt);
    if (shared) shared.scripts = scripts;
    this.scripts = scripts;
    this.scratchDir = options.tools.scratchDir ?? path.join(os.tmpdir(), `cairn-${this.sessionId}`);
    this.processes = new RunProcesses({
      scratchDir: this.scratchDir,
      sessionId: this.sessionId,
      sandbox: options.workspace.sandbox,
      commands: options.tools.commands,
      browser: options.tools.browser,
      workspace: this.cwd,
      lsp: options.tools.lsp,
      languageServers: options.tools.languageServers,
    });
    const focusSettings = { ...defaultFocusChainSettings, ...options.tools.focusChain };
    const priorProgress = journal.prior?.taskProgress;
    this.focus = priorProgress ? new FocusChain(focusSettings, priorProgress) : FocusChain.fromMessages(focusSettings, this.conversation.messages);
    this.prompt = new TaskPrompt({
      cwd: this.cwd,
      home: options.workspace.home,
      rulesOff: options.workspace.rulesOff ?? [],
      replacement: options.model.systemPrompt,
      customInstructions: options.model.customInstructions,
      mcp: options.tools.mcp,
      sandbox: options.tools.commands ? undefined : options.workspace.sandbox?.sandbox,
      taskProgress: this.focus.settings.enabled,
      environmentDetails: options.workspace.environmentDetails !== false,
      activePaths: this.tools.activePaths,
      ignore: this.ignore,
    });
  }

  private stopForJournal(failure: JournalFailure): void {
    this.journalFailure = failure;
    this.controller.abort();
  }

  /** Starts the task with the person's request. */
  run(task: string, images?: readonly ImagePart[]): AsyncGenerator<AgentEvent, TaskResult> {
    return this.pump(task, images);
  }

  /** Continues after a result: feedback on a completion, an answer, or a new instruction. */
  continue(message: string, images?: readonly ImagePart[]): AsyncGenerator<AgentEvent, TaskResult> {
    return this.pump(message, images);
  }

  /** Stops the model stream and any running tool; the run ends with error_aborted. */
  abort(): void {
    this.controller.abort();
  }

  /** Every event of every run, for hosts that observe rather than drive. Returns an unsubscribe function. */
  subscribe(listener: (event: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What the task has cost so far (USD; 0 while unknown), for a budget its sub-agents share. */
  costSoFar(): number {
    return this.spend.costUsd ?? 0;
  }

  /** A plan left waiting was approved with a budget (a host asking again on resume): the whole task may cost this much from now on. */
  agreeBudget(usd: number): void {
    this.budget = { usd, from: agreedWithPlan };
  }

  /** The budget agreed with a plan, as the task's snapshot and stored state carry it (none for --max-budget-usd's). */
  private agreedBudget(): { agreedBudgetUsd?: number } {
    return this.budget?.from === agreedWithPlan ? { agreedBudgetUsd: this.budget.usd } : {};
  }

  /** What the whole task may cost (USD), if it has a budget: its sub-agents share what is left of it. */
  budgetUsd(): number | undefined {
    return this.budget?.usd;
  }

  snapshot(): TaskSnapshot {
    return {
      sessionId: this.sessionId,
      mode: this.mode,
      messages: structuredClone(this.conversation.messages),
      turns: this.turns,
      usage: { ...this.spend.usage },
      costUsd: this.spend.costUsd,
      ...this.agreedBudget(),
    };
  }

  restore(messages: Message[]): void {
    if (this.running) throw new Error("Cannot restore messages while the task is running; abort it first.");
    this.conversation.replace(structuredClone(messages));
    this.prompt.forgetShown(this.focus);
  }

  setMode(mode: Mode): void {
    this.mode = mode;
  }

  /** `images`: pictures the person attached (`--image`), sent with the message. */
  private async *pump(text: string, images: readonly ImagePart[] = []): AsyncGenerator<AgentEvent, TaskResult> {
    if (this.running) throw new Error("This task is already running; wait for it to finish or abort it.");
    this.running = true;
    if (this.controller.signal.aborted) this.controller = new AbortController();
    this.processes.begin();
    // Commands' masks keep every ignore rule read since the task began, even if a command deletes its file.
    const releaseIgnoreRules = this.ignore.holdForCommands();
    const channel = new Channel<AgentEvent>();
    const emit = (event: AgentEvent) => {
      this.publish(event);
      channel.push(event);
    };
    let finished = false;
    const driving = this.drive(text, emit, images).finally(() => {
      finished = true;
      channel.close();
    });
    try {
      for await (const event of channel) yield event;
      return await driving;
    } finally {
      if (!finished) {
        this.controller.abort();
        await driving.catch(() => undefined);
      }
      await this.processes.end();
      releaseIgnoreRules();
      this.running = false;
    }
  }

  /** Shrinks the conversation when it no longer fits the model's window (see context/). */
  private async fit(emit: (event: AgentEvent) => void, request: { fixedText: string; model: Model }, force?: "truncate" | "compact"): Promise<void> {
    const beforeCompact = this.hooks.beforeCompact(force === "compact" ? "manual" : "auto", emit, this.controller.signal);
    const fitted = await this.context.fit(this.conversation.messages, request, { ...(force ? { force } : {}), ...(beforeCompact ? { beforeCompact } : {}), signal: this.controller.signal });
    if (!fitted) return;
    // The summary may have taken the notes that told the environment and the checklist: the request goes with them again.
    const last = fitted.messages.at(-1);
    if (last?.role === "user") {
      const notes = this.prompt.reshowNotes(this.notesNow(request.model)).map((text) => ({ type: "text" as const, text }));
      fitted.messages[fitted.messages.length - 1] = { ...last, content: [...last.content, ...notes] };
    } else this.prompt.forgetShown(this.focus);
    this.conversation.replace(fitted.messages);
    emit(fitted.boundary);
  }

  /**
   * SessionEnd hooks: the host calls this when the person's session with the task ends. Their
   * notices are published like a run's events and returned, for a host that has no subscriber.
   */
  async endSession(reason: string): Promise<AgentEvent[]> {
    const { events, emit } = this.betweenRuns();
    await this.hooks.sessionEnd(reason, emit, this.controller.signal);
    return events;
  }

  /** /compact: summarise the conversation now, whatever its size. Its events are returned, as endSession's. */
  async compact(): Promise<AgentEvent[]> {
    const { events, emit } = this.betweenRuns();
    const protocol = protocolFor(this.options.model.protocol ?? "native", { taskProgress: this.focus.settings.enabled });
    const tools = this.tools.inMode(this.mode);
    const system = this.prompt.system(protocol.name, tools, this.mode);
    await this.fit(emit, { fixedText: system, model: this.options.model.main }, "compact");
    return events;
  }

  /**
   * Where every event goes, in a run or between runs: the journal, the loop's onEvent hook,
   * subscribers. Public for the host's own events (the session runner's user_message, awaiting,
   * handoff...), so they are journaled and replayed like the task's; not for a run's generator.
   */
  publish(event: AgentEvent): void {
    this.options.journal.store?.event(event);
    this.hooks.hooks.onEvent?.(event);
    for (const listener of this.listeners) listener(event);
  }

  /**
   * Events of work done between runs (SessionEnd hooks, /compact): published like a run's, and
   * also handed back, so a host that reads runs through their generator (--json) gets them too.
   */
  private betweenRuns(): { events: AgentEvent[]; emit: (event: AgentEvent) => void } {
    const events: AgentEvent[] = [];
    return {
      events,
      emit: (event) => {
        this.publish(event);
        events.push(event);
      },
    };
  }

  private journalState(status: TaskState["status"], result?: string): void {
    this.options.journal.store?.state({
      mode: this.mode,
      status,
      turns: this.turns,
      usage: usageJson(this.spend.usage),
      totalCostUsd: this.spend.costUsd,
      ...(this.focus.current ? { taskProgress: this.focus.current.map((i) => ({ ...i })) } : {}),
      ...this.agreedBudget(),
      ...(result === undefined ? {} : { result }),
    });
  }

  /** What one call of this step needs from the task (see executeCall). */
  private callEnv(model: Model, approval: ApprovalSettings, emit: (event: AgentEvent) => void): CallEnv {
    const options = this.options;
    return {
      tools: this.tools.byName,
      mode: this.mode,
      cwd: this.cwd,
      ignore: this.ignore,
      scratchDir: this.scratchDir,
      readRoots: this.prompt.skillFolders(),
      home: options.workspace.home,
      modelSupportsImages: model.info.supportsImages,
      files: options.tools.files,
      terminal: this.processes.terminal,
      commandPermissions: options.policy.commandPermissions,
      approvalRequiredCommands: options.policy.approvalRequiredCommands ?? [],
      scripts: this.scripts,
      approval,
      policyState: this.policyState,
      sandbox: this.processes.sandboxSummary(),
      history: this.callHistory,
      host: options.host ?? {},
      hooks: this.hooks.hooks,
      signal: this.controller.signal,
      emit,
      subagents: options.tools.subagents,
      handoffs: options.limits.handoffs,
      languageServers: this.processes.languageServers,
    };
  }

  private async drive(text: string, emit: (event: AgentEvent) => void, attached: readonly ImagePart[]): Promise<TaskResult> {
    const options = this.options;
    const protocol = protocolFor(options.model.protocol ?? "native", { taskProgress: this.focus.settings.enabled });
    this.focus.newRun();
    const run: Run = {
      emit,
      protocol,
      record: new RunRecord(this.turns),
      approval: { yolo: options.policy.yolo === true, autoApprove: new Set(options.policy.autoApprove ?? []) },
      offered: () => this.tools.offered(this.mode, protocol.name),
      retry: { ...defaultRetryPolicy, ...options.model.retry },
      model: options.model.main,
      mistakes: 0,
      stopContinuations: 0,
      compactRetried: false,
    };

    emit({
      type: "system",
      subtype: "init",
      session_id: this.sessionId,
      cwd: this.cwd,
      model: options.model.main.id,
      provider: options.model.main.provider,
      protocol: protocol.name,
      mode: this.mode,
      tools: run.offered().map((t) => t.name),
      permissionMode: run.approval.yolo ? "yolo" : "default",
      auto_approve: [...run.approval.autoApprove],
      sandbox: this.processes.sandboxSummary(),
    });
    for (const message of [...this.openingNotices.splice(0), ...this.prompt.skippedRules()]) emit({ type: "system", subtype: "notice", level: "warning", message });

    const ended = await this.openRun(text, attached, run);
    if (ended) return ended;
    for (let transition: Transition = "start"; ; ) {
      const next = await this.turn(transition, run);
      if (typeof next !== "string") return next;
      transition = next;
    }
  }

  /** Before the first turn: a crashed step's results, a slash command, the prompt hooks, the person's message. The result when the run ends here. */
  private async openRun(text: string, attached: readonly ImagePart[], run: Run): Promise<TaskResult | undefined> {
    const { options } = this;
    const { emit, protocol } = run;
    if (this.pendingResults) {
      // A task cut by a crash: give its last calls their results before anything new.
      const repaired = repairInterrupted(this.conversation.messages, this.pendingResults, protocol, [...this.tools.byName.values()]);
      for (const message of repaired.slice(this.conversation.length)) this.conversation.record(message);
      this.pendingResults = undefined;
    }
    const command = parseSlashCommand(text, { cwd: this.cwd, ignore: this.ignore, ...(options.workspace.home ? { home: options.workspace.home } : {}) });
    if (command?.kind === "compact") {
      await this.fit(emit, { fixedText: this.prompt.system(protocol.name, run.offered(), this.mode), model: options.model.main }, "compact");
      text = command.rest || "[The conversation was compacted at the user's request. Continue the task from the summary.]";
    } else if (command?.kind === "newtask") {
      const handoff = await writeHandoff(this.conversation.messages, command.rest, options.model.main, this.controller.signal);
      return this.finish(run, "success", handoff, { new_task: handoff });
    } else if (command?.kind === "unknown") {
      // Sent on, "/deploy" would read to the model as a request it then guesses at.
      return this.finish(run, "error_during_execution", unknownCommandText(command.name));
    } else if (command?.kind === "text") {
      text = command.text;
      for (const message of command.notices ?? []) emit({ type: "system", subtype: "notice", level: "warning", message });
    }
    const prompt = await this.hooks.onPrompt(text, emit, this.controller.signal);
    if (prompt.blocked) return this.finish(run, "error_during_execution", `The prompt was blocked by a UserPromptSubmit hook: ${prompt.blocked}`);
    const hookContext = prompt.context.length > 0 ? `\n\n[Context from hooks]\n${prompt.context.join("\n")}` : "";
    if (attached.length > 0 && !options.model.main.info.supportsImages) return this.finish(run, "error_during_execution", imagesRefused(options.model.main.id));
    const user = await userText(text, {
      cwd: this.cwd,
      mode: this.mode,
      messages: this.conversation.messages,
      signal: this.controller.signal,
      ignore: this.ignore,
      scratchDir: this.scratchDir,
      terminal: this.processes.terminal,
      environmentDetails: options.workspace.environmentDetails !== false,
      mentions: options.tools.mentions === true,
      modelSupportsImages: options.model.main.info.supportsImages,
      problemsCommand: options.tools.problemsCommand,
      sandbox: options.workspace.sandbox?.sandbox,
      activePaths: this.tools.activePaths,
      languageServers: this.processes.languageServers,
      emit,
    });
    // A new task's first message tells the time and the mode; a later run's, what changed since the model last saw it.
    const fresh = this.conversation.length === 0;
    const opening = fresh ? [] : this.prompt.openingNotes(this.notesNow(run.model));
    this.conversation.appendUser(`${user.text}${hookContext}${opening.map((note) => `\n\n${note}`).join("")}`, [...attached, ...user.images]);
    if (fresh) this.prompt.environmentShown(this.notesNow(run.model));
    if (run.record.turnsAtStart === 0) this.stepCheckpoints.taskStarts(emit);
    this.journalState("running");
    return undefined;
  }

  /** One turn: the limits, the conversation fitted to the window, the model's reply and its calls. Why the loop goes round again, or the run's result. */
  private async turn(transition: Transition, run: Run): Promise<Transition | TaskResult> {
    const { options } = this;
    const { emit, protocol } = run;
    const spent = this.spend.costUsd;
    if (this.budget !== undefined && spent !== null && spent >= this.budget.usd) {
      return this.finish(run, "error_max_budget_usd", `Stopped: the task has cost $${spent.toFixed(4)}, reaching the budget of $${this.budget.usd} (${this.budget.from}).`);
    }
    if (turnLimitReached(this.turns - run.record.turnsAtStart, options.limits.maxTurns)) {
      return this.finish(run, "error_max_turns", `Stopped after ${options.limits.maxTurns} turns without completing the task (--max-turns).`);
    }
    this.turns++;
    emit({ type: "turn_start", turn: this.turns, reason: transition });
    const tools = run.offered();
    const commandsOffered = tools.some((tool) => tool.kind === "command");
    // What a first command needs (the sandbox's network, the classifier's parser) loads beside a
    // model request, not between a command's reply and the next request: from the second request
    // of a run (the model is using tools), or as a command call streams (the parser only for a
    // command that is not plain). A task the model answers at once never pays for it.
    if (commandsOffered && transition !== "start") {
      this.processes.prepareCommands();
      // Once the request has gone out: loading the parser holds this thread for some 30 ms.
      setImmediate(preloadShellParser);
    }
    const system = this.prompt.system(protocol.name, tools, this.mode);
    const requestTools = this.requestTools.of(protocol, tools);
    const fixedText = `${system}${JSON.stringify(requestTools ?? [])}`;
    try {
      await this.fit(emit, { fixedText, model: run.model }, run.compactRetried ? "truncate" : undefined);
    } catch (error) {
      // Stopped while a summary was being written: the conversation is unchanged, end like any abort.
      if (this.controller.signal.aborted) return this.finish(run, "error_aborted", "The task was stopped.");
      throw error;
    }
    this.stepCheckpoints.stepStarts();
    const model = run.model;
    const outcome = await runTurn({
      model,
      fallbackModel: model === options.model.fallback ? undefined : options.model.fallback,
      protocol,
      tools,
      requestTools,
      system,
      messages: this.conversation.messages,
      retry: run.retry,
      maxContinuations: options.limits.maxContinuations ?? 3,
      hooks: this.hooks.hooks,
      callEnv: this.callEnv(model, run.approval, emit),
      signal: this.controller.signal,
      emit,
      journal: options.journal.store,
      beforeWrite: () => this.stepCheckpoints.readyForWrites(emit),
      costSoFar: this.spend.costUsd,
      ...(this.budget ? { budgetUsd: this.budget.usd } : {}),
      toolExecution: options.tools.execution ?? "parallel",
      ...(commandsOffered ? { commandSoon: () => this.processes.prepareCommands(), parserSoon: preloadShellParser } : {}),
      writeSoon: () => this.stepCheckpoints.writeSoon(emit),
    });
    this.spend.add(outcome.usage, outcome.cost);
    run.record.apiMs += outcome.apiMs;

    if (outcome.kind === "aborted") return this.finish(run, "error_aborted", "The task was stopped.");
    if (outcome.kind === "failed" && outcome.error.kind === "context_window" && !run.compactRetried && options.limits.compaction !== "off") {
      // The provider counted more than we did: shrink once more and retry the same turn.
      run.compactRetried = true;
      this.turns--;
      return "compact_retry";
    }
    run.compactRetried = false;
    if (outcome.kind === "failed") {
      emit({ type: "error", kind: outcome.error.kind, message: outcome.error.message });
      return this.finish(run, "error_during_execution", `The model request failed: ${outcome.error.message}`);
    }
    run.model = outcome.model;
    this.conversation.addJournaled(outcome.assistant); // runTurn has journaled it
    this.context.noteReply(outcome.usage, this.conversation.length);
    emit(assistantEvent(this.sessionId, outcome));

    run.record.denials.push(...this.tools.noteStep(outcome.executed));
    this.spend.addSpent(outcome.executed);
    const progress = this.focus.update(outcome.executed.map((e) => e.call.taskProgress));
    if (progress) emit({ type: "task_progress", items: progress });

    if (outcome.executed.length === 0 && outcome.finishReason === "content-filter") {
      // The provider refused or filtered the reply (its reason is the reply's one line, kept in the
      // conversation): asking again gets the same answer, so the person hears it and decides.
      const text = outcome.assistant.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
      const reason = /\[([^\n]*)\]\s*$/.exec(text)?.[1] ?? "the provider's content filter stopped the reply.";
      return this.finish(run, "error_during_execution", `Stopped: ${reason}`);
    }
    if (outcome.executed.length === 0) {
      run.mistakes++;
      if (mistakeLimitReached(run.mistakes, this.maxMistakes())) {
        const reason = noToolReason(run.mistakes, protocol.name, this.conversation.messages);
        if (!(await options.host?.confirmContinue?.(reason, this.controller.signal))) return this.finish(run, "error_mistake_limit", `Stopped: ${reason}.`);
        run.mistakes = 0;
      }
      this.conversation.appendUser(noToolNudge(protocol.name));
      this.journalState("running");
      return "no_tool_nudge";
    }
    return this.afterStep(outcome.executed, outcome.notes, run);
  }

  /** A step's calls ran: what the model learns with their results, the step's checkpoint, and whether the run goes on. */
  private async afterStep(executed: ExecutedCall[], turnNotes: readonly string[], run: Run): Promise<Transition | TaskResult> {
    const { options } = this;
    const { emit, approval } = run;
    const changing = executed.filter((e) => e.verdict !== "denied" && (this.tools.byName.get(e.call.name)?.kind === "edit" || this.tools.byName.get(e.call.name)?.kind === "command"));
    const outside = changing.length > 0 ? undefined : await this.stepCheckpoints.changesOutsideTheAgent(emit);
    const now = { mode: this.mode, contextTokens: this.context.contextTokens, contextWindow: run.model.info.contextWindow, terminal: this.processes.terminal, focus: this.focus };
    const notes = [...turnNotes, ...this.prompt.stepNotes(outside, now)];
    const loop = checkForLoop(this.callHistory, { ...defaultLoopSettings, ...options.limits.loopDetection });
    if (loop.level === "warn") {
      notes.push(loopWarning(loop));
      emit({ type: "system", subtype: "notice", level: "warning", message: loop.reason });
    }
    const answers = await answerControls(executed, { yolo: approval.yolo, host: options.host, focus: this.focus, hooks: this.hooks, stopContinuations: run.stopContinuations, signal: this.controller.signal, emit, estimate: (plan) => this.estimate(plan, run.model) });
    if (answers.stopHookBlocked) run.stopContinuations++;
    notes.push(...answers.notes);
    const { control, plan, estimate, handoff, endRun, stopBlocked } = answers;
    this.conversation.record(run.protocol.resultsMessage(executed, notes));
    this.journalState("running");
    if (changing.length > 0) this.stepCheckpoints.checkpoint(`turn ${this.turns}: ${changing.map((e) => e.call.name).join(", ")}`, emit, { step: true, ...touchedBy(this.tools.byName, changing, this.cwd) });

    if (endRun) return this.finish(run, "error_during_execution", `Stopped by a hook: ${endRun}`);
    if (control?.type === "complete" && !stopBlocked) {
      return this.finish(run, "success", control.result, control.command ? { command: control.command } : {});
    }
    if (control?.type === "ask") {
      return this.finish(run, "needs_input", control.question, { question: { text: control.question, options: control.options } });
    }
    if (handoff?.approved) return this.finish(run, "success", handoff.context, { new_task: handoff.context });
    if (control?.type === "plan") {
      if (!plan) return this.finish(run, "needs_input", control.plan, { plan: control.plan, ...(estimate ? { plan_estimate: estimate } : {}) });
      if (plan.approved) {
        if (plan.budgetUsd !== undefined) this.agreeBudget(plan.budgetUsd);
        this.mode = "act";
        emit({ type: "system", subtype: "mode", mode: "act", reason: approval.yolo ? "yolo: plans are approved automatically" : "the user approved the plan" });
      }
    }
    if (loop.level === "stop") {
      const goOn = await options.host?.confirmContinue?.(loop.reason, this.controller.signal);
      if (!goOn) return this.finish(run, "error_loop_detected", `Stopped: ${loop.reason}`);
      this.callHistory.length = 0;
    }
    run.mistakes = nextMistakeCount(run.mistakes, executed.map((e) => e.verdict));
    if (mistakeLimitReached(run.mistakes, this.maxMistakes())) {
      const last = executed[executed.length - 1]!;
      const reason = `${run.mistakes} consecutive mistakes; the last: ${last.call.name}: ${firstLine(last.result)}`;
      // A person at the keyboard may give the model another chance; nobody means stop.
      if (!(await options.host?.confirmContinue?.(reason, this.controller.signal))) return this.finish(run, "error_mistake_limit", `Stopped after ${reason}`);
      run.mistakes = 0;
    }
    return "next_turn";
  }

  /** What the plan's Act phase should take, from this task's history so far and the model's price. */
  private estimate(plan: string, model: Model): PlanEstimate {
    const contextTokens = this.context.contextTokens || estimateMessagesTokens(this.conversation.messages);
    return estimatePlan({ plan, turns: this.turns, usage: this.spend.usage, costUsd: this.spend.costUsd, contextTokens, pricing: model.info.pricing });
  }

  /** What the notes beside the conversation are made of, now (a resumed task has sent no request yet: its conversation is estimated). */
  private notesNow(model: Model): { mode: Mode; contextTokens: number; contextWindow: number; focus: FocusChain } {
    const contextTokens = this.context.contextTokens || estimateMessagesTokens(this.conversation.messages);
    return { mode: this.mode, contextTokens, contextWindow: model.info.contextWindow, focus: this.focus };
  }

  private maxMistakes(): number {
    return this.options.limits.maxMistakes ?? 3;
  }

  /** The run ends: its last checkpoints written, its result journaled and emitted. A journal that could not be written overrides the result. */
  private async finish(run: Run, subtype: ResultSubtype, result: string, extra: Partial<TaskResult> = {}): Promise<TaskResult> {
    if (this.journalFailure) {
      subtype = "error_during_execution";
      result = describeJournalFailure(this.journalFailure, this.sessionId);
    }
    if (subtype === "success") this.stepCheckpoints.checkpointEnd(run.emit);
    await this.stepCheckpoints.ended(run.emit);
    this.options.workspace.checkpoints?.packInBackground();
    const outcome = run.record.result(subtype, result, extra, { turns: this.turns, costUsd: this.spend.costUsd, usage: this.spend.usage, sessionId: this.sessionId });
    this.journalState(statusOf(subtype), result);
    run.emit({ type: "result", ...outcome });
    return outcome;
  }
}

function firstLine(result: { content: unknown }): string {
  const text = typeof result.content === "string" ? result.content : "";
  return text.split("\n")[0] ?? "";
}
