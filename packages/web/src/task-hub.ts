import { cairnHome, historyRows, listTasks, removeFromHistoryIndex, shownStatus, TaskNotFoundError, TaskStore, type HistoryEntry } from "@cairn/core/storage";
import { SessionRecordings } from "@cairn/host/record";
import type { RunArgs } from "@cairn/host/run-args";
import { EventLog } from "./event-log.js";
import type { RestoreDone, RestoreWhat } from "./checkpoint-timeline.js";
import { LiveTask } from "./live-task.js";
import { OpenError, openNewTask, openStoredTask } from "./task-opener.js";
import { imagesRefused, type ImagePart, type Mode, type SessionOverrides } from "@cairn/core";
import { checkModel, choiceOverrides, type ModelChoice } from "./model-choices.js";

export type Opened = { ok: true; id: string } | { ok: false; status: 400 | 404 | 409; message: string };

/** The tasks this server runs at once, each with its own runs, all on one numbered event log. */
export class TaskHub {
  readonly log = new EventLog();
  private tasks = new Map<string, LiveTask>();
  /** Tasks whose events are in the log: opened here again (after a hand-off left them), their record is not sent twice. */
  private known = new Set<string>();
  /** With --record, where each task opened here records its model exchanges. */
  private readonly recordings: SessionRecordings | undefined;

  constructor(
    private readonly args: RunArgs,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.recordings = SessionRecordings.of(args, env);
  }

  get(id: string): LiveTask | undefined {
    return this.tasks.get(id);
  }

  /**
   * A new task whose first run starts at once with `text` and `images`, on the model the person
   * picked (else the configured one). Pictures for a model that takes none are refused before
   * anything is opened or stored, as `cairn run --image` refuses them.
   */
  async start(text: string, mode: Mode | undefined, picked: { model?: ModelChoice; images?: readonly ImagePart[] } = {}): Promise<Opened> {
    const images = picked.images ?? [];
    let model: SessionOverrides = {};
    if (picked.model) {
      const chosen = choiceOverrides(picked.model, this.args, this.env);
      if (!chosen.ok) return { ok: false, status: 400, message: chosen.message };
      model = chosen.overrides;
    }
    if (images.length > 0) {
      const check = await checkModel(picked.model, this.args, this.env);
      if (!check.ok) return { ok: false, status: 400, message: check.message };
      if (!check.supports_images) return { ok: false, status: 400, message: imagesRefused(check.model) };
    }
    const live = this.liveTask();
    try {
      const runner = await openNewTask(this.args, text, live.host, mode ?? this.args.mode ?? "act", this.env, model, this.recordings);
      live.attach(runner, false);
      this.tasks.set(live.id, live);
    } catch (error) {
      if (error instanceof OpenError) return { ok: false, status: 400, message: error.message };
      throw error;
    }
    const sent = await live.send(text, images);
    return sent.ok ? { ok: true, id: live.id } : sent;
  }

  /** The full id a (possibly shortened) id names, so a prefix never opens a second copy of a task here. */
  private resolve(id: string): string {
    if (this.tasks.has(id)) return id;
    try {
      return TaskStore.open(cairnHome(this.env), id).id;
    } catch (error) {
      if (error instanceof TaskNotFoundError) return id; // reported by whoever opens it next
      throw error;
    }
  }

  /** A stored task carried on with `text`, or a message to one already here. */
  async send(given: string, text: string, images: readonly ImagePart[] = []): Promise<Opened> {
    const id = this.resolve(given);
    const here = this.tasks.get(id);
    if (here) {
      const sent = await here.send(text, images);
      return sent.ok ? { ok: true, id } : sent;
    }
    const live = this.liveTask();
    try {
      const runner = await openStoredTask(this.args, id, live.host, this.env, this.recordings);
      live.attach(runner, this.known.has(id));
      this.tasks.set(live.id, live);
    } catch (error) {
      if (error instanceof OpenError) return { ok: false, status: 404, message: error.message };
      throw error;
    }
    const sent = await live.send(text, images);
    return sent.ok ? { ok: true, id } : sent;
  }

  /** Goes back to a checkpoint of a task of this server that is not running; its next message tells the model it was stopped. */
  async restore(id: string, number: number, what: RestoreWhat): Promise<{ ok: true; done: RestoreDone } | { ok: false; status: 404 | 409; message: string }> {
    const live = this.tasks.get(id);
    if (!live?.opened) return { ok: false, status: 404, message: `No task ${id} in this server; send it a message first to open it here.` };
    return live.restore(number, what);
  }

  /** Deletes a stored task (as `cairn delete`); never one that is running, here or in another process. */
  async remove(given: string): Promise<{ ok: true } | { ok: false; status: 404 | 409; message: string }> {
    const id = this.resolve(given);
    const live = this.tasks.get(id);
    if (live?.running) return { ok: false, status: 409, message: "The task is working; stop it before deleting it." };
    const home = cairnHome(this.env);
    let store: TaskStore;
    try {
      store = TaskStore.open(home, id);
    } catch (error) {
      if (error instanceof TaskNotFoundError) return { ok: false, status: 404, message: error.message };
      throw error;
    }
    const meta = store.metadata();
    if (!live && meta.status === "running" && !store.interrupted) return { ok: false, status: 409, message: `Task ${id} is running (process ${meta.pid}); stop it before deleting it.` };
    if (live) {
      this.tasks.delete(id);
      await live.close();
    }
    store.delete();
    removeFromHistoryIndex(home, id);
    this.log.append(id, { type: "web_deleted" });
    return { ok: true };
  }

  /** A stored task's recorded events (no deltas), to show it before carrying it on; read only. */
  storedEvents(id: string): { ok: true; events: unknown[] } | { ok: false; message: string } {
    try {
      return { ok: true, events: TaskStore.open(cairnHome(this.env), id).loadEvents() };
    } catch (error) {
      if (error instanceof TaskNotFoundError) return { ok: false, message: error.message };
      throw error;
    }
  }

  /**
   * The tasks of this server's workspace (every workspace's with `all`), as cairn history lists
   * them: each task's sub-agents and hand-offs after it, one level deeper; a task left "running" by
   * a process that is gone is interrupted.
   */
  history(all: boolean): { workspace: string; tasks: Array<Omit<HistoryEntry, "status"> & { status: ReturnType<typeof shownStatus>; depth: number }> } {
    const { entries } = listTasks(cairnHome(this.env), all ? {} : { workspace: this.args.cwd });
    return { workspace: this.args.cwd, tasks: historyRows(entries).map(({ entry, depth }) => ({ ...entry, status: shownStatus(entry), depth })) };
  }

  running(): Array<{ id: string; running: boolean }> {
    return [...this.tasks.values()].map((t) => ({ id: t.id, running: t.running }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.tasks.values()].map((t) => t.close()));
  }

  /** Events are published under the task's id, known once it is opened (nothing is published before). */
  private liveTask(): LiveTask {
    const live: LiveTask = new LiveTask(
      (id, event) => {
        this.known.add(id);
        this.log.append(id, event);
      },
      (from, to) => {
        // The old task's session ended with the hand-off: a message to it opens it again from the store.
        this.tasks.delete(from);
        this.tasks.set(to, live);
      },
    );
    return live;
  }
}
