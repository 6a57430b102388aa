import { describe, expect, it } from "vitest";
import { InteractiveHost } from "./interactive-host.js";
import { EventPresenter } from "./present-events.js";
import { SessionView } from "./session-view.js";

function setup() {
  const view = new SessionView({ frameMs: 0, columns: 80, rows: 40 });
  return { view, presenter: new EventPresenter(view), snapshot: () => (view.flush(), view.getSnapshot()) };
}

describe("sub-agents in the TUI", () => {
  it("show their steps under the use_subagents card that started them, not under other calls", () => {
    const { presenter, snapshot } = setup();
    presenter.apply({ type: "tool_call", tool_use_id: "t1", name: "use_subagents", kind: "read", input: { prompts: ["a", "b"] }, summary: "2 sub-agents: a", status: "pending", locations: [] });
    presenter.apply({ type: "tool_call", tool_use_id: "t2", name: "read_file", kind: "read", input: { path: "x" }, summary: "read x", status: "pending", locations: [] });
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "use_subagents", status: "running" });
    presenter.apply({ type: "subagent", parent_tool_use_id: "t1", index: 0, task_id: "s1", status: "running", activity: "read notes.txt" });
    presenter.apply({ type: "subagent", parent_tool_use_id: "t1", index: 1, task_id: "s2", status: "completed", activity: "found it\nmore" });
    const cards = snapshot().live.tools;
    const parent = cards.find((c) => c.id === "t1")!;
    expect(parent.output).toBe("· sub-agent 1: read notes.txt\n✓ sub-agent 2: found it\n");
    expect(parent.outputLines).toBe(2);
    expect(cards.find((c) => c.id === "t2")!.output).toBe("");
  });
});

describe("new_task in the TUI", () => {
  it("shows the context and starts the new task only when the person says so, with what they add", async () => {
    const { view, presenter, snapshot } = setup();
    const host = new InteractiveHost(view);
    // The runner says what is awaited before it asks the host.
    presenter.apply({ type: "awaiting", kind: "handoff", text: "Goal: X\nLeft: Y" });
    expect(snapshot().history.at(-1)).toMatchObject({ kind: "info", lines: ["Goal: X", "Left: Y"] });
    const started = host.confirmNewTask("Goal: X\nLeft: Y", new AbortController().signal);
    expect(view.prompt?.kind).toBe("handoff");
    if (view.prompt?.kind === "handoff") view.prompt.resolve({ start: true, addition: "use pnpm" });
    await expect(started).resolves.toEqual({ approved: true, context: "Goal: X\nLeft: Y\n\nThe user adds: use pnpm" });

    const stayed = host.confirmNewTask("Goal: X", new AbortController().signal);
    if (view.prompt?.kind === "handoff") view.prompt.resolve({ start: false, feedback: "finish here first" });
    await expect(stayed).resolves.toEqual({ approved: false, feedback: "finish here first" });
    // Why the person stayed is theirs to read in the history; a hand-off agreed to shows as the hand-off.
    presenter.apply({ type: "answered", kind: "handoff", approved: false, text: "finish here first" });
    expect(snapshot().history.at(-1)).toMatchObject({ kind: "user", text: "finish here first" });
    presenter.apply({ type: "answered", kind: "handoff", approved: true, text: "Goal: X" });
    presenter.apply({ type: "handoff", from_task_id: "a", task_id: "b", context: "Goal: X" });
    expect(snapshot().history.at(-1)).toMatchObject({ kind: "info", title: "A fresh task carries this work on, starting from:", lines: ["Goal: X"] });
    expect(snapshot().history.at(-2)).toMatchObject({ kind: "user", text: "finish here first" });

    // Stopped while asking: no new task.
    const controller = new AbortController();
    const stopped = host.confirmNewTask("Goal: X", controller.signal);
    controller.abort();
    await expect(stopped).resolves.toEqual({ approved: false });
  });
});

describe("sub-agents headless", () => {
  it("cairn run's progress shows each sub-agent's steps and end", async () => {
    const { ProgressRenderer } = await import("../progress-renderer.js");
    let out = "";
    const renderer = new ProgressRenderer((text) => (out += text));
    // Sub-agents' lines come under the use_subagents call that started them.
    renderer.render({ type: "tool_call", tool_use_id: "t1", name: "use_subagents", kind: "read", input: {}, summary: "2 sub-agents", status: "pending", locations: [] });
    renderer.render({ type: "subagent", parent_tool_use_id: "t1", index: 0, task_id: "s1", status: "running", activity: "read notes.txt" });
    renderer.render({ type: "subagent", parent_tool_use_id: "t1", index: 1, task_id: "s2", status: "failed", activity: "stopped" });
    renderer.close();
    expect(out).toBe("→ 2 sub-agents\n  · sub-agent 1: read notes.txt\n  ✗ sub-agent 2: stopped\n");
  });
});
