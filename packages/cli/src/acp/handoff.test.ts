import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { TaskStore } from "@cairn/core/storage";
import { afterEach, describe, expect, it } from "vitest";
import { handoffAnswer, handoffChain, handoffPermission } from "./handoff.js";

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function task(home: string, title: string, parent?: TaskStore, relation: "handoff" | "subagent" = "handoff"): TaskStore {
  const store = TaskStore.create(home, { task: title, workspace: "/w", provider: "anthropic", model: "m", protocol: "native", mode: "act", ...(parent ? { parent: { id: parent.id, relation } } : {}) });
  parent?.addChild({ id: store.id, relation });
  return store;
}

describe("handoffChain: an editor's thread across hand-offs", () => {
  it("follows hand-offs (the latest where there are several) and not sub-agents", () => {
    const home = mkdtempSync(path.join(os.tmpdir(), "cairn-chain-"));
    homes.push(home);
    const first = task(home, "first");
    task(home, "a sub-agent", first, "subagent");
    const abandoned = task(home, "handed over, then loaded and handed over again", first);
    const second = task(home, "second", first);
    const third = task(home, "third", second);
    expect(handoffChain(home, first.id).map((s) => s.id)).toEqual([first.id, second.id, third.id]);
    expect(handoffChain(home, abandoned.id).map((s) => s.id)).toEqual([abandoned.id]);
    // A task deleted since ends the chain where it is known.
    third.delete();
    expect(handoffChain(home, first.id).map((s) => s.id)).toEqual([first.id, second.id]);
  });
});

describe("the hand-off question", () => {
  it("asks on the new_task call's card with the context and two choices; only 'start' starts it", () => {
    const asked = handoffPermission("s1", "toolu_1", "GOAL: finish it");
    expect(asked.toolCall.toolCallId).toBe("toolu_1");
    expect(JSON.stringify(asked.toolCall.content)).toContain("GOAL: finish it");
    expect(asked.options.map((o) => o.optionId)).toEqual(["start_new_task", "stay"]);
    expect(handoffAnswer({ outcome: "selected", optionId: "start_new_task" }, "GOAL")).toEqual({ approved: true, context: "GOAL" });
    expect(handoffAnswer({ outcome: "selected", optionId: "stay" }, "GOAL")).toEqual({ approved: false });
    expect(handoffAnswer({ outcome: "cancelled" }, "GOAL")).toEqual({ approved: false });
  });
});
