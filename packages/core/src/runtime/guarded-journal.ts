import type { TaskJournal } from "../storage/task-journal.js";

/** A write the journal could not make: which file, and the system's reason. */
export type JournalFailure = { path: string | undefined; code: string | undefined; message: string };

const reasons: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is used up",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EIO: "an input/output error",
};

/** What a person does about each system error before resuming. */
const remedies: Record<string, string> = {
  ENOSPC: "free some space",
  EDQUOT: "free some space",
  EROFS: "make it writable",
  EACCES: "make it writable",
  EPERM: "make it writable",
};

/**
 * One line: which path failed and why, in words, with the system's code, and what to do. Only a
 * system error is a problem of the disk: anything else (a value Cairn could not serialise) is
 * said as such, so nobody is sent to free space that was never short.
 */
export function describeJournalFailure(failure: JournalFailure, sessionId: string): string {
  const resume = `resume the task (cairn resume ${sessionId})`;
  if (failure.code === undefined) {
    return `Cannot record the task's journal: ${failure.message} (not a disk problem: Cairn could not serialise what it had to write). Everything written before it is kept; ${resume}.`;
  }
  const reason = reasons[failure.code] ? `${reasons[failure.code]} (${failure.code})` : failure.message;
  const what = failure.path ? `Cannot write ${failure.path}: ${reason}` : `Cannot write the task's journal: ${reason}`;
  return `${what}. Everything written before it is kept: ${remedies[failure.code] ?? "fix that"}, then ${resume}.`;
}

function failureOf(error: unknown): JournalFailure {
  const e = error as NodeJS.ErrnoException;
  const message = e instanceof Error ? e.message.split("\n")[0]! : String(error);
  return { path: typeof e?.path === "string" ? e.path : undefined, code: typeof e?.code === "string" ? e.code : undefined, message };
}

/**
 * Wraps a journal so that a failed write (a full disk, a read-only CAIRN_HOME) never throws into
 * the loop: the first failure is reported once through `onFailure` and every later write is
 * skipped, so what was written stays whole and the task can be resumed once the cause is fixed.
 */
export function guardJournal(journal: TaskJournal, onFailure: (failure: JournalFailure) => void): TaskJournal {
  let failed = false;
  const guard =
    <A extends unknown[]>(write: (...args: A) => void) =>
    (...args: A): void => {
      if (failed) return;
      try {
        write(...args);
      } catch (error) {
        failed = true;
        onFailure(failureOf(error));
      }
    };
  return {
    message: guard((m) => journal.message(m)),
    callResult: guard((c, r) => journal.callResult(c, r)),
    replaceMessages: guard((m) => journal.replaceMessages(m)),
    event: guard((e) => journal.event(e)),
    state: guard((s) => journal.state(s)),
    ...(journal.checkpoint ? { checkpoint: guard((r: Parameters<NonNullable<TaskJournal["checkpoint"]>>[0]) => journal.checkpoint!(r)) } : {}),
    ...(journal.hasCheckpoint ? { hasCheckpoint: () => journal.hasCheckpoint!() } : {}), // a read: nothing to lose
  };
}
