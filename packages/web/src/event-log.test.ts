import { describe, expect, it } from "vitest";
import type { AgentEvent } from "@cairn/core";
import { EventLog } from "./event-log.js";

const delta = (message_id: string, text: string) => ({ type: "text_delta" as const, message_id, text });
const assistant = (id: string, text: string): AgentEvent => ({
    type: "assistant",
    message: { id, role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: "end_turn", usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } },
    session_id: "t",
  });

describe("EventLog", () => {
  it("replays what came after a given id, in order", () => {
    const log = new EventLog();
    for (const text of ["a", "b", "c"]) log.append("t1", delta("m1", text));
    expect(log.since(1).map((e) => e.id)).toEqual([2, 3]);
    expect(log.since(0).map((e) => e.id)).toEqual([1, 2, 3]);
    expect(log.since(3)).toEqual([]);
  });

  it("folds a finished message's deltas into one at the first one's place, keeping what came between", () => {
    const log = new EventLog();
    log.append("t1", delta("m1", "Hel"));
    log.append("t2", delta("x", "other task"));
    log.append("t1", delta("m1", "lo"));
    log.append("t1", { type: "turn_start", turn: 1, reason: "next_turn" });
    log.append("t1", assistant("m1", "Hello"));
    const all = log.since(0);
    expect(all.map((e) => [e.id, e.event.type])).toEqual([
      [1, "text_delta"],
      [2, "text_delta"],
      [4, "turn_start"],
      [5, "assistant"],
    ]);
    expect(all[0]!.event).toMatchObject({ text: "Hello" });
    expect(all[1]!.event).toMatchObject({ text: "other task" });
    // The other task's message still streams and folds later.
    log.append("t2", delta("x", "!"));
    log.append("t2", assistant("x", "other task!"));
    expect(log.since(0).filter((e) => e.task_id === "t2").map((e) => e.event.type)).toEqual(["text_delta", "assistant"]);
    expect(log.since(0).find((e) => e.task_id === "t2")!.event).toMatchObject({ text: "other task!" });
  });

  it("stays the same size per turn over many turns of streaming", () => {
    const log = new EventLog();
    for (let turn = 0; turn < 300; turn++) {
      for (let i = 0; i < 50; i++) log.append("t", delta(`m${turn}`, "tok "));
      log.append("t", assistant(`m${turn}`, "tok ".repeat(50)));
    }
    expect(log.size).toBe(600);
  });
});
