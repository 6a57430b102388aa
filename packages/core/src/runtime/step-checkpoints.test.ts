import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Checkpoints } from "../checkpoints/index.js";
import { tempWorkspace, type TempWorkspace } from "../checkpoints/test-support.js";
import type { AgentEvent } from "../events/index.js";
import { processRunning, processStart } from "../storage/process-identity.js";
import { StepCheckpoints } from "./step-checkpoints.js";

/** A task's checkpoints around a first index built by a detached git, and a task with none of its own: real stores, real git. */

let tmp: TempWorkspace;
let ws: string;
let events: AgentEvent[];
const emit = (event: AgentEvent) => events.push(event);
const made = () => events.flatMap((e) => (e.type === "checkpoint" ? [{ label: e.label, at: e.message_index }] : []));
const notices = () => events.flatMap((e) => (e.type === "system" && e.subtype === "notice" ? [e.message] : []));

beforeEach(async () => {
  tmp = await tempWorkspace();
  ws = tmp.workspace;
  events = [];
});
afterEach(async () => {
  await tmp.cleanup();
});

describe("a task's checkpoints", () => {
  it("a run that changed nothing leaves the first index to its git; the task's first write later makes the baseline where it started", async () => {
    const files = 10_050;
    for (let d = 0; d * 100 < files; d++) {
      mkdirSync(path.join(ws, `d${d}`));
      for (let i = d * 100; i < (d + 1) * 100 && i < files; i++) writeFileSync(path.join(ws, `d${d}`, `f${i}.txt`), `${i}\n`);
    }
    const store = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    let messages = 1;
    const steps = new StepCheckpoints(store, undefined, () => messages);
    steps.checkpoint("task start", emit, { mayDefer: true });
    steps.checkpointEnd(emit);
    await steps.ended(emit);
    const left = notices().find((n) => n.startsWith("checkpoints: the first index goes on in the background"));
    expect(left).toMatch(/\(git, pid \d+\); the next task here starts from it$/);
    expect(made()).toEqual([]);

    // A later run of the same task writes: the baseline comes first (after the indexer), at the task's start.
    messages = 5;
    await steps.readyForWrites(emit);
    expect(made()).toEqual([{ label: "task start", at: 1 }]);
    expect((await store.list()).map((c) => c.message)).toEqual(["task start"]);
    const pid = Number(/pid (\d+)/.exec(left ?? "")?.[1]);
    const who = { pid, start: processStart(pid) ?? "", host: os.hostname() };
    while (processRunning(who)) await sleep(20);
  }, 120_000);

  it("a resumed task's first write waits for a baseline when the store holds no checkpoint yet, and adds none when it does", async () => {
    writeFileSync(path.join(ws, "a.txt"), "a\n");
    const store = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    await new StepCheckpoints(store, undefined, () => 4).readyForWrites(emit);
    expect(made()).toEqual([{ label: "task start", at: 4 }]);
    events = [];
    await new StepCheckpoints(store, undefined, () => 6).readyForWrites(emit);
    expect(made()).toEqual([]);
  });

  it("in a store with checkpoints, a new task's baseline waits for its first change; a carried-on task with none of its own gets one before its first write", async () => {
    writeFileSync(path.join(ws, "a.txt"), "a\n");
    const earlier = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    await earlier.create("an earlier task");
    const store = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const readOnly = new StepCheckpoints(store, undefined, () => 1);
    readOnly.taskStarts(emit);
    readOnly.checkpointEnd(emit);
    await readOnly.ended(emit);
    expect(made()).toEqual([]);

    const writes = new StepCheckpoints(store, undefined, () => 1);
    writes.taskStarts(emit);
    writeFileSync(path.join(ws, "a.txt"), "changed before the task's first write\n");
    writes.writeSoon(emit); // a call that may write begins to stream: the baseline is made now, at the task's start in the conversation
    await writes.readyForWrites(emit);
    expect(made()).toEqual([{ label: "task start", at: 1 }]);

    events = [];
    const own = { checkpointed: false };
    const journal = { message() {}, callResult() {}, replaceMessages() {}, event() {}, state() {}, hasCheckpoint: () => own.checkpointed };
    await new StepCheckpoints(store, journal, () => 5).readyForWrites(emit);
    expect(made()).toEqual([{ label: "task start", at: 5 }]);
    events = [];
    own.checkpointed = true;
    await new StepCheckpoints(store, journal, () => 7).readyForWrites(emit);
    expect(made()).toEqual([]);
  });
});
