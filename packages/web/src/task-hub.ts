import { cairnHome, listTasks, type HistoryEntry } from "@cairn/core/storage";
import type { RunArgs } from "cairn/dist/run-args.js";
import { EventLog } from "./event-log.js";
import { LiveTask } from "./live-task.js";
import { OpenError, openNewTask, openStoredTask } from "./task-opener.js";

export type Opened = { ok: true; id: string } | { ok: false; status: 400 | 404 | 409; message: string };

/** The tasks this server runs at once, each with its own runs, all on one numbered event log. */
export class TaskHub {
  readonly log = new EventLog();
  private tasks = new Map<string, LiveTask>();

  constructor(
    private readonly args: RunArgs,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  get(id: string): LiveTask | undefined {
    return this.tasks.get(id);
  }

  /** A new task whose first run starts at once with `text`. */
  async start(text: string, mode: "act" | "plan" | undefined): Promise<Opened> {
    const live = this.liveTask();
    try {
      const session = await openNewTask(this.args, text, live.host, mode ?? this.args.mode ?? "act", this.env);
      live.attach(session, false);
      this.tasks.set(live.id, live);
    } catch (error) {
      if (error instanceof OpenError) return { ok: false, status: 400, message: error.message };
      throw error;
    }
    const sent = live.send(text);
    return sent.ok ? { ok: true, id: live.id } : sent;
  }

  /** A stored task carried on with `text`, or a message to one already here. */
  async send(id: string, text: string): Promise<Opened> {
    const here = this.tasks.get(id);
    if (here) {
      const sent = here.send(text);
      return sent.ok ? { ok: true, id } : sent;
    }
    const live = this.liveTask();
    try {
      const session = await openStoredTask(this.args, id, live.host, this.env);
      live.attach(session, true);
      this.tasks.set(live.id, live);
    } catch (error) {
      if (error instanceof OpenError) return { ok: false, status: 404, message: error.message };
      throw error;
    }
    const sent = live.send(text);
    return sent.ok ? { ok: true, id } : sent;
  }

  history(): HistoryEntry[] {
    return listTasks(cairnHome(this.env)).entries;
  }

  running(): Array<{ id: string; running: boolean }> {
    return [...this.tasks.values()].map((t) => ({ id: t.id, running: t.running }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.tasks.values()].map((t) => t.close()));
  }

  /** Events are published under the task's id, known once it is opened (nothing is published before). */
  private liveTask(): LiveTask {
    const live: LiveTask = new LiveTask((event) => this.log.append(live.id, event));
    return live;
  }
}
