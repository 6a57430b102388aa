import { describe, expect, it } from "vitest";
import type { TaskJournal } from "../storage/task-journal.js";
import { describeJournalFailure, guardJournal, type JournalFailure } from "./guarded-journal.js";

/** The failure a guarded journal reports when its first write throws `error`. */
function failureOf(error: unknown): JournalFailure {
  const failures: JournalFailure[] = [];
  const throwing = () => {
    throw error;
  };
  const journal = guardJournal({ message: throwing, callResult: throwing, replaceMessages: throwing, event: throwing, state: throwing } as TaskJournal, (f) => failures.push(f));
  journal.event({ type: "turn_start", turn: 1, reason: "start" });
  journal.event({ type: "turn_start", turn: 2, reason: "next_turn" });
  expect(failures).toHaveLength(1);
  return failures[0]!;
}

describe("a journal write that fails", () => {
  it("on a full disk says so and asks for space", () => {
    const error = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", path: "/h/tasks/t/events.jsonl" });
    expect(describeJournalFailure(failureOf(error), "t")).toBe(
      "Cannot write /h/tasks/t/events.jsonl: no space left on the device (ENOSPC). Everything written before it is kept: free some space, then resume the task (cairn resume t).",
    );
  });

  it("on a read-only home asks to make it writable, not to free space", () => {
    const error = Object.assign(new Error("EROFS: read-only file system, open"), { code: "EROFS", path: "/h/tasks/t/events.jsonl" });
    expect(describeJournalFailure(failureOf(error), "t")).toMatch(/read-only \(EROFS\)\. .*: make it writable, then resume/);
  });

  it("with an error that is not the system's (a stack overflow while serialising) never blames the disk", () => {
    const line = describeJournalFailure(failureOf(new RangeError("Maximum call stack size exceeded")), "t");
    expect(line).toBe(
      "Cannot record the task's journal: Maximum call stack size exceeded (not a disk problem: Cairn could not serialise what it had to write). Everything written before it is kept; resume the task (cairn resume t).",
    );
    expect(line).not.toMatch(/space|writable/);
  });
});
