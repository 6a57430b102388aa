import { IndexingLeftRunning, type Checkpoints, type IndexingAway } from "../checkpoints/index.js";
import type { AgentEvent } from "../events/index.js";
import { workspaceAbsolute } from "../policy/workspace.js";
import type { TaskJournal } from "../storage/task-journal.js";
import type { AnyTool } from "../tools/tool.js";
import type { ExecutedCall } from "./execute-call.js";
import { accessesOf } from "./gather-facts.js";
import { thousands } from "../text/thousands.js";

type Emit = (event: AgentEvent) => void;

/** What a checkpoint looks at: `paths` only (else everything); `step`: none is added when nothing changed; `mayDefer`: a baseline put off in a huge workspace. */
export type CheckpointScope = { paths?: string[]; step?: boolean; mayDefer?: boolean };

/**
 * A task's checkpoints, one per step that may change files, so that any step can be undone. They
 * are written behind the loop (the next model request and reads do not wait; writes do), which
 * makes their state (the last one, the one being written, a baseline put off, whether the
 * workspace is known to match) a concept of its own rather than fields of the loop.
 */
export class StepCheckpoints {
  private lastCheckpoint: string | undefined;
  /** The checkpoint being written; tools of the next step that may write wait for it, the model request and reads do not. */
  private checkpointing: Promise<void> = Promise.resolve();
  /** The workspace is too big to checkpoint before it is needed: the first write waits for its baseline (recorded at this point of the conversation). */
  private baselineDeferred: { messageIndex: number } | undefined;
  /** The whole workspace was compared with `lastCheckpoint` after the last tool ran: "task completed" needs no git. */
  private upToDate = false;
  private lastCheckpointFailure: string | undefined;
  /** A step that may have changed files ran (or a write began): the run's end waits for its checkpoints. */
  private changesMade = false;
  /** The baseline waits for a first index that a detached git builds: a run that changed nothing need not (see `ended`). */
  private indexingAway: IndexingAway | undefined;
  private leaving = false;
  private wakeEnded: (() => void) | undefined;
  /** Whether a task with no checkpoint of its own in this process (a resumed one) was looked at for one, once. */
  private storeChecked = false;

  /** `messageCount`: the conversation's length now, the point a checkpoint belongs to. */
  constructor(
    private readonly store: Checkpoints | undefined,
    private readonly journal: TaskJournal | undefined,
    private readonly messageCount: () => number,
  ) {}

  /**
   * The run ends: resolves once its checkpoints are written. When no step of it changed anything and
   * all that is left is the baseline waiting for a detached git building the workspace's first index
   * (minutes on a huge workspace), that git is left to finish on its own: the next call on the store,
   * in this process or another, adopts its index, and the baseline is put off to the first write.
   */
  async ended(emit: Emit): Promise<void> {
    if (!this.store || this.changesMade) return this.checkpointing;
    const away = await new Promise<boolean>((resolve) => {
      this.wakeEnded = () => resolve(true);
      if (this.indexingAway) resolve(true);
      void this.checkpointing.then(() => resolve(false));
    });
    this.wakeEnded = undefined;
    const indexing = this.indexingAway;
    if (away) this.leaving = true;
    if (away && indexing?.letGo()) {
      emit({
        type: "system",
        subtype: "notice",
        level: "info",
        message: `checkpoints: the first index goes on in the background (git, pid ${indexing.pid}); the next task here starts from it`,
      });
    }
    await this.checkpointing;
  }

  /**
   * A new task starts: its baseline, the checkpoint to go back to. In a store that already holds
   * checkpoints it waits for the task's first change (`writeSoon`, `readyForWrites`), so a task that
   * changes nothing runs no git at all; a new store's baseline starts now, since its first index may
   * take long on a big workspace and is best built while the model thinks.
   */
  taskStarts(emit: Emit): void {
    if (!this.store) return;
    if (this.store.heldCheckpoint) this.baselineDeferred = { messageIndex: this.messageCount() };
    else this.checkpoint("task start", emit, { mayDefer: true });
  }

  /** A call that may change files has begun to stream: a baseline put off until the first change is made now, while the call streams. */
  writeSoon(emit: Emit): void {
    if (this.baselineNow(emit)) this.changesMade = true;
  }

  /**
   * Queues the baseline that was put off, if one was (returns whether): nothing the task did has
   * changed files yet, so it belongs where the task started.
   */
  private baselineNow(emit: Emit): boolean {
    const deferred = this.baselineDeferred;
    if (!deferred || !this.store) return false;
    this.baselineDeferred = undefined;
    this.checkpointing = this.checkpointing.then(() => this.makeCheckpoint("task start", emit, {}, deferred.messageIndex));
    return true;
  }

  /** Tools are about to run: the workspace may no longer match the last checkpoint. */
  stepStarts(): void {
    this.upToDate = false;
  }

  /**
   * Files that changed since the last checkpoint although this step changed nothing itself: the
   * person or a background process did it. They are recorded as a checkpoint of their own, so each
   * change is reported once (and can be undone like a step of the agent's).
   */
  async changesOutsideTheAgent(emit: Emit): Promise<string | undefined> {
    const checkpoints = this.store;
    // No baseline yet (a first index still running, or put off): nothing to compare with, and no step waits for it.
    if (!checkpoints || !this.lastCheckpoint) return undefined;
    await this.checkpointing;
    const label = "changes outside the agent";
    let made;
    try {
      made = await checkpoints.step(label, { since: this.lastCheckpoint });
    } catch {
      return undefined;
    }
    if (made.kind !== "checkpoint") return undefined;
    this.upToDate = true;
    const files = made.changes;
    if (files.length === 0) return undefined;
    this.recordCheckpoint(made.hash, label, files.length, this.messageCount(), emit);
    const shown = files.slice(0, 20).map((f) => `- ${f.status}: ${f.path}`);
    const more = files.length > 20 ? `\n- … and ${files.length - 20} more` : "";
    return `[Files changed outside your tools since your last step (by the user or a background process); re-read them before relying on what you saw:\n${shown.join("\n")}${more}]`;
  }

  /**
   * Queues the checkpoint of the workspace as it is after the current step. `paths`: what the step
   * touched (only those are looked at; omitted after a command, which may touch anything). A step
   * that changed nothing adds no checkpoint; the task's start and end are recorded either way,
   * pointing at the latest checkpoint when nothing changed.
   */
  checkpoint(label: string, emit: Emit, scope: CheckpointScope = {}): void {
    if (!this.store) return;
    // The conversation's length now: the checkpoint belongs to this point of it, however long it takes.
    const messageIndex = this.messageCount();
    if (scope.step) this.changesMade = true;
    this.checkpointing = this.checkpointing.then(() => this.makeCheckpoint(label, emit, scope, messageIndex));
  }

  /** "task completed": the latest checkpoint when nothing can have changed since it was compared with the workspace. */
  checkpointEnd(emit: Emit): void {
    if (!this.store) return;
    const messageIndex = this.messageCount();
    this.checkpointing = this.checkpointing.then(async () => {
      if (this.baselineDeferred) return; // nothing was changed, so there is nothing to go back to
      if (this.upToDate && this.lastCheckpoint) this.recordCheckpoint(this.lastCheckpoint, "task completed", 0, messageIndex, emit);
      else await this.makeCheckpoint("task completed", emit, {}, messageIndex);
    });
  }

  /** Tools that may change files wait for this: the previous step's checkpoint, and a deferred baseline made now. */
  async readyForWrites(emit: Emit): Promise<void> {
    this.changesMade = true;
    this.baselineNow(emit);
    // A baseline under way may itself be put off (a huge workspace): it is made below, before the write.
    await this.checkpointing;
    if (!this.baselineDeferred && !this.lastCheckpoint && !this.storeChecked && this.store) {
      // A task carried on (resumed, or moved to another model) whose earlier runs left no checkpoint of
      // its own (their baseline was put off: they changed nothing): one before the write. Without a
      // journal to ask, only when the store has none at all.
      this.storeChecked = true;
      const own = this.journal?.hasCheckpoint?.();
      const none = own !== undefined ? !own : !(await this.store.hasCheckpoints().catch(() => true));
      if (none) this.baselineDeferred = { messageIndex: this.messageCount() };
    }
    this.baselineNow(emit);
    await this.checkpointing;
  }

  private async makeCheckpoint(label: string, emit: Emit, scope: CheckpointScope, messageIndex: number): Promise<void> {
    const checkpoints = this.store;
    if (!checkpoints) return;
    try {
      const made = await checkpoints
        .step(label, {
          ...(scope.paths ? { paths: scope.paths } : {}),
          ...(this.lastCheckpoint ? { since: this.lastCheckpoint } : {}),
          ...(scope.mayDefer ? { mayDefer: true, onIndexingAway: (indexing) => this.awaitsIndexer(indexing) } : {}),
          onNotice: (message) => emit({ type: "system", subtype: "notice", level: "info", message }),
        })
        .finally(() => (this.indexingAway = undefined));
      if (made.kind === "deferred") {
        this.baselineDeferred = { messageIndex };
        emit({
          type: "system",
          subtype: "notice",
          level: "info",
          message: `checkpoints: ${thousands(made.files)} files here, more than checkpointsLazyAboveFiles; the first checkpoint is made before the first change`,
        });
        return;
      }
      if (scope.step && made.changes.length === 0) {
        // Nothing changed since this task's last checkpoint: the step adds none.
        this.upToDate = scope.paths === undefined && made.hash === this.lastCheckpoint;
        return;
      }
      this.upToDate = scope.paths === undefined;
      this.recordCheckpoint(made.hash, label, made.changes.length, messageIndex, emit);
    } catch (error) {
      // The run ended without waiting for the first index (see `ended`): the baseline is made before the first write.
      if (error instanceof IndexingLeftRunning) {
        this.baselineDeferred = { messageIndex };
        return;
      }
      // A store that broke mid-task fails every later checkpoint the same way: say it once.
      const reason = (error as Error).message.split("\n")[0];
      if (reason === this.lastCheckpointFailure) return;
      this.lastCheckpointFailure = reason;
      emit({ type: "system", subtype: "notice", level: "warning", message: `Checkpoint not made (${reason}); the task goes on.` });
    }
  }

  private awaitsIndexer(indexing: IndexingAway): void {
    this.indexingAway = indexing;
    if (this.leaving) indexing.letGo();
    this.wakeEnded?.();
  }

  private recordCheckpoint(hash: string, label: string, changedFiles: number, messageIndex: number, emit: Emit): void {
    this.lastCheckpoint = hash;
    this.journal?.checkpoint?.({ hash, messageIndex, label, createdAt: new Date().toISOString() });
    emit({ type: "checkpoint", hash, message_index: messageIndex, label, changed_files: changedFiles });
  }
}

/** What a step's checkpoint must look at: the paths its edits name, or everything. */
export function touchedBy(tools: ReadonlyMap<string, AnyTool>, changing: readonly ExecutedCall[], cwd: string): { paths?: string[] } {
  const paths = editedPaths(tools, changing, cwd);
  return paths ? { paths } : {};
}

/** Edits name their paths; a command, or an edit that names none, may have touched anything. */
function editedPaths(tools: ReadonlyMap<string, AnyTool>, calls: readonly ExecutedCall[], cwd: string): string[] | undefined {
  const paths: string[] = [];
  for (const done of calls) {
    const tool = tools.get(done.call.name);
    if (tool?.kind !== "edit") return undefined;
    // Input the tool could not read names no path (accessesOf): look at everything.
    const edits = accessesOf(tool, done.call.input).flatMap((a) => (a.type === "edit" ? [a.path] : []));
    if (edits.length === 0) return undefined;
    for (const edit of edits) paths.push(workspaceAbsolute(cwd, edit));
  }
  return paths;
}
