import type { ToolExecution } from "../storage/settings.js";

export type { ToolExecution };

/** What the scheduler is told about one call it runs. */
export type ScheduledRun = {
  /** Call this when the call has passed its checks and approval (it runs now, or it ended): the next read may start its own. */
  cleared(): void;
};

export type CallSchedulerOptions<C, R> = {
  execution: ToolExecution;
  /** True for a call that changes nothing anywhere, so it may run beside other such calls. */
  concurrent(call: C): boolean;
  run(call: C, scheduled: ScheduledRun): Promise<R>;
  /** Each result, in the reply's order: call i's only after calls 0..i-1 had theirs. */
  settled(call: C, result: R, index: number): void;
};

/**
 * Runs the calls of one reply as they arrive. A concurrent call (a read) starts once everything
 * that is not concurrent before it has finished and the call before it has cleared its checks, so
 * reads overlap while their approvals are asked one at a time, in the reply's order. Any other call
 * (an edit, a command, a question, completion) waits for every call before it, so it acts on what
 * they saw and the reads after it see what it did. Results are reported in the reply's order.
 */
export class CallScheduler<C, R> {
  /** Per call, in order: it has cleared its checks (what the read after it waits for). */
  private readonly clearedSoFar: Array<Promise<void>> = [];
  private readonly results: R[] = [];
  /** Everything up to the last call that is not concurrent has finished (and been reported). */
  private lastBarrier: Promise<void> = Promise.resolve();
  private flushedSoFar: Promise<void> = Promise.resolve();

  constructor(private readonly options: CallSchedulerOptions<C, R>) {}

  /** Queues a call; it starts as soon as the rules above let it. */
  add(call: C): void {
    const index = this.clearedSoFar.length;
    const concurrent = this.options.execution === "parallel" && this.options.concurrent(call);
    const start = concurrent ? Promise.all([this.lastBarrier, this.clearedSoFar[index - 1]]).then(() => undefined) : this.flushedSoFar;

    let markCleared!: () => void;
    const cleared = new Promise<void>((resolve) => (markCleared = resolve));
    const done = start.then(() =>
      this.options.run(call, { cleared: markCleared }).then(
        (result) => {
          markCleared();
          return result;
        },
        (error: unknown) => {
          markCleared();
          throw error;
        },
      ),
    );
    // Reported in order: after the calls before it, whatever order they finish in.
    const flushed = Promise.all([this.flushedSoFar, done]).then(([, result]) => {
      this.results[index] = result;
      this.options.settled(call, result, index);
    });
    this.clearedSoFar.push(cleared);
    this.flushedSoFar = flushed;
    if (!concurrent) this.lastBarrier = flushed;
  }

  /** Every call's result, in the reply's order, once all have finished. */
  async finished(): Promise<R[]> {
    await this.flushedSoFar;
    return [...this.results];
  }
}
