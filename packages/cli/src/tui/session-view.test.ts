import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AgentEvent } from "@cairn/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InteractiveHost } from "./interactive-host.js";
import { EventPresenter } from "./present-events.js";
import { SessionView } from "./session-view.js";
import type { HistoryItem } from "./view-types.js";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-view-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const delta = (text: string): AgentEvent => ({ type: "text_delta", message_id: "m1", text });
const kinds = (items: HistoryItem[]) => items.map((i) => i.kind);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function setup(options: { frameMs?: number; rows?: number } = {}) {
  const view = new SessionView({ frameMs: options.frameMs ?? 0, columns: 80, rows: options.rows ?? 40 });
  const presenter = new EventPresenter(view, dir);
  let renders = 0;
  view.subscribe(() => renders++);
  return { view, presenter, renders: () => renders, snapshot: () => (view.flush(), view.getSnapshot()) };
}

describe("rendering rate", () => {
  it("streamed tokens render once per frame, not once per token", async () => {
    const { view, presenter, renders } = setup({ frameMs: 30 });
    const started = Date.now();
    let tokens = 0;
    while (Date.now() - started < 150) {
      presenter.apply(delta("tok "));
      tokens++;
      await sleep(2);
    }
    await sleep(40);
    expect(tokens).toBeGreaterThan(30);
    // ~150 ms of tokens at one render per 30 ms frame: about 5 renders, whatever the token count.
    expect(renders()).toBeGreaterThanOrEqual(3);
    expect(renders()).toBeLessThanOrEqual(8);
    expect(view.getSnapshot().live.text).toBe("tok ".repeat(tokens));
  });

  it("a structural change (a new card, a prompt) renders on the next tick", async () => {
    const { presenter, renders } = setup({ frameMs: 10_000 });
    presenter.apply({ type: "tool_call", tool_use_id: "t1", name: "read_file", kind: "unknown", input: { path: "a" }, summary: "read a", status: "pending", locations: [] });
    await sleep(5);
    expect(renders()).toBe(1);
  });
});

describe("the streamed reply", () => {
  it("moves whole lines into the history once the live part would grow past its rows", () => {
    const { presenter, snapshot } = setup({ rows: 24 });
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    for (const line of lines) presenter.apply(delta(`${line}\n`));
    const { history, live } = snapshot();
    const printed = history.flatMap((i) => (i.kind === "assistant" ? i.text.split("\n") : []));
    expect(live.text.split("\n").length).toBeLessThanOrEqual(11);
    expect([...printed, ...live.text.split("\n")].filter((l) => l !== "")).toEqual(lines);
  });

  it("a retried stream after lines were printed says so; before that it is just replaced", () => {
    const { presenter, snapshot } = setup({ rows: 20 });
    presenter.apply(delta("short"));
    presenter.apply({ type: "stream_discarded", message_id: "m1", reason: "overloaded" });
    expect(snapshot().live.text).toBe("");
    expect(snapshot().history).toHaveLength(0);
    presenter.apply(delta("x\n".repeat(20)));
    presenter.apply({ type: "stream_discarded", message_id: "m1", reason: "overloaded" });
    expect(snapshot().history.at(-1)).toMatchObject({ kind: "notice", level: "warning" });
  });

  it("reasoning is folded into one item when the answer starts", () => {
    const { presenter, snapshot } = setup();
    presenter.apply({ type: "reasoning_delta", message_id: "m1", text: "let me think about it" });
    expect(snapshot().live.reasoningWords).toBe(5);
    presenter.apply(delta("Answer"));
    presenter.apply({ type: "turn_start", turn: 2, reason: "next_turn" });
    expect(kinds(snapshot().history)).toEqual(["reasoning", "assistant"]);
  });
});

describe("tool calls", () => {
  it("a card lives while the call runs, then moves to the history with its result", () => {
    const { presenter, snapshot } = setup();
    presenter.apply({ type: "tool_call", tool_use_id: "t1", name: "execute_command", kind: "unknown", input: { command: "ls" }, summary: "$ ls", status: "pending", locations: [] });
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "execute_command", status: "running", decision: { approved: true, by: "auto", reason: "safe" } });
    presenter.apply({ type: "tool_output", tool_use_id: "t1", text: "a\nb\n" });
    expect(snapshot().live.tools[0]).toMatchObject({ status: "running", output: "a\nb\n", outputLines: 2, approvedBy: "auto" });
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "execute_command", content: "Command: ls\nExit code: 0\nOutput:\na\nb\n", is_error: false, status: "completed" });
    const { live, history } = snapshot();
    expect(live.tools).toEqual([]);
    expect(history[0]).toMatchObject({ kind: "tool", card: { status: "done", summary: "$ ls" } });
  });

  it("an edit awaiting approval prints its full diff first, computed before the file changes", () => {
    writeFileSync(path.join(dir, "a.txt"), "old\n");
    const { presenter, snapshot } = setup();
    presenter.apply({ type: "tool_call", tool_use_id: "t1", name: "write_to_file", kind: "unknown", input: { path: "a.txt", content: "new\n" }, summary: "write a.txt", status: "pending", locations: [] });
    writeFileSync(path.join(dir, "a.txt"), "new\n");
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "write_to_file", status: "awaiting_approval", approval: { category: "edit", summary: "write a.txt" } });
    const proposal = snapshot().history[0];
    expect(proposal).toMatchObject({ kind: "proposal", card: { edit: { added: 1, removed: 1 } } });
  });

  it("plan and progress messages read as the model's words, not as tool cards", () => {
    const { presenter, snapshot } = setup();
    presenter.apply({ type: "tool_call", tool_use_id: "p1", name: "plan_mode_respond", kind: "unknown", input: { response: "1. do it" }, summary: "plan ready for review", status: "pending", locations: [] });
    presenter.apply({ type: "tool_call_update", tool_use_id: "p1", name: "plan_mode_respond", content: "1. do it", is_error: false, status: "completed" });
    expect(snapshot().history).toEqual([expect.objectContaining({ kind: "assistant", text: "1. do it" })]);
  });

  it("the status follows usage and checkpoints", () => {
    const { presenter, snapshot } = setup();
    presenter.apply({ type: "usage", model: "m", usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 }, cost_usd: 0.01, total_cost_usd: 0.03 });
    presenter.apply({ type: "checkpoint", hash: "abc", message_index: 1, label: "x", changed_files: 1 });
    expect(snapshot().status).toMatchObject({ contextTokens: 125, costUsd: 0.03, checkpoints: 1 });
  });
});

describe("memory", () => {
  it("printed history items are released; only what is still live is held", () => {
    const { view, presenter, snapshot } = setup();
    for (let i = 0; i < 50; i++) {
      presenter.apply({ type: "tool_call", tool_use_id: `t${i}`, name: "read_file", kind: "unknown", input: { path: "a" }, summary: "read a", status: "pending", locations: [] });
      presenter.apply({ type: "tool_call_update", tool_use_id: `t${i}`, name: "read_file", content: "x".repeat(1000), is_error: false, status: "completed" });
    }
    const printed = snapshot().history.length;
    expect(view.heldItems).toBe(50);
    view.releasePrinted(printed);
    expect(view.heldItems).toBe(0);
  });
});

describe("prompts", () => {
  it("wait their turn; a stopped turn withdraws the prompt with its stop answer", async () => {
    const { view } = setup();
    const host = new InteractiveHost(view);
    const controller = new AbortController();
    const first = host.confirmContinue("looping", controller.signal);
    const second = host.ask("Which?", ["a", "b"], new AbortController().signal);
    expect(view.prompt?.kind).toBe("confirm");
    controller.abort();
    await expect(first).resolves.toBe(false);
    expect(view.prompt?.kind).toBe("question");
    if (view.prompt?.kind === "question") view.prompt.resolve("b");
    await expect(second).resolves.toBe("b");
    expect(view.prompt).toBeUndefined();
  });

  it('"always allow" answers with remember: "task" so the task adds the suggested rule; never for a protected file', async () => {
    const { view } = setup();
    const host = new InteractiveHost(view);
    const signal = new AbortController().signal;
    const request = { tool_use_id: "1", tool: "write_to_file", category: "edit" as const, summary: "write a", input: {}, suggested_rule: "write_to_file(**)" };
    const answer = host.approve(request, signal);
    if (view.prompt?.kind === "approval") view.prompt.resolve({ approved: true, always: true });
    await expect(answer).resolves.toEqual({ approved: true, remember: "task" });
    // The host keeps no list of its own: the next request is the task's to answer, so it reaches the person.
    const guarded = host.approve({ ...request, tool_use_id: "2", protected: { path: ".cairnignore", reason: "the person's list" } }, signal);
    expect(view.prompt?.kind).toBe("approval");
    if (view.prompt?.kind === "approval") view.prompt.resolve({ approved: true, always: true });
    await expect(guarded).resolves.toEqual({ approved: true });
  });
});
