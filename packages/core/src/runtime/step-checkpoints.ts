import type { Checkpoints } from "../checkpoints/index.js";
import type { AgentEvent } from "../events/index.js";
import { workspaceAbsolute } from "../policy/workspace.js";
import type { TaskJournal } from "../storage/task-journal.js";
import type { AnyTool } from "../tools/tool.js";
import type { ExecutedCall } from "./execute-call.js";
import { accessesOf } from "./gather-facts.js";

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

  /** `messageCount`: the conversation's length now, the point a checkpoint belongs to. */
  constructor(
    private readonly store: Checkpoints | undefined,
    private readonly journal: TaskJournal | undefined,
    private readonly messageCount: () => number,
  ) {}

  /** The checkpoints queued so far are written (or have failed). */
  settled(): Promise<void> {
    return this.checkpointing;
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
    await this.checkpointing;
    const deferred = this.baselineDeferred;
    if (!deferred) return;
    this.baselineDeferred = undefined;
    // Nothing has changed since the task started: the baseline belongs where the task started.
    this.checkpointing = this.makeCheckpoint("task start", emit, {}, deferred.messageIndex);
    await this.checkpointing;
  }

  private async makeCheckpoint(label: string, emit: Emit, scope: CheckpointScope, messageIndex: number): Promise<void> {
    const checkpoints = this.store;
    if (!checkpoints) return;
    try {
      const made = await checkpoints.step(label, {
        ...(scope.paths ? { paths: scope.paths } : {}),
        ...(this.lastCheckpoint ? { since: this.lastCheckpoint } : {}),
        ...(scope.mayDefer ? { mayDefer: true } : {}),
        onNotice: (message) => emit({ type: "system", subtype: "notice", level: "info", message }),
      });
      if (made.kind === "deferred") {
        this.baselineDeferred = { messageIndex };
        emit({
          type: "system",
          subtype: "notice",
          level: "info",
          message: `checkpoints: ${made.files.toLocaleString("en-US")} files here, more than checkpointsLazyAboveFiles; the first checkpoint is made before the first change`,
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
      // A store that broke mid-task fails every later checkpoint the same way: say it once.
      const reason = (error as Error).message.split("\n")[0];
      if (reason === this.lastCheckpointFailure) return;
      this.lastCheckpointFailure = reason;
      emit({ type: "system", subtype: "notice", level: "warning", message: `Checkpoint not made (${reason}); the task goes on.` });
    }
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
