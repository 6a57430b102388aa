import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AgentEvent } from "@cairn/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { InteractiveHost } from "./interactive-host.js";
import { EventPresenter } from "./present-events.js";
import { SessionView } from "./session-view.js";
import type { HistoryItem } from "./view-types.js";

process.env.FORCE_COLOR = "0";
const { renderToString } = await import("ink");
const { createElement } = await import("react");
const { HistoryItemView } = await import("./history-item.js");
const { ThemeContext, themeFor } = await import("./theme.js");

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-view-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const delta = (text: string): AgentEvent => ({ type: "text_delta", message_id: "m1", text });
// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "");
const drawItem = (item: HistoryItem) => plain(renderToString(createElement(ThemeContext.Provider, { value: themeFor({ NO_COLOR: "1" }) }, createElement(HistoryItemView, { item, width: 100 })), { columns: 100 }));
const kinds = (items: HistoryItem[]) => items.map((i) => i.kind);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function setup(options: { frameMs?: number; rows?: number } = {}) {
  const view = new SessionView({ frameMs: options.frameMs ?? 0, columns: 80, rows: options.rows ?? 40 });
  const presenter = new EventPresenter(view);
  let renders = 0;
  view.subscribe(() => renders++);
  return { view, presenter, renders: () => renders, snapshot: () => (view.flush(), view.getSnapshot()) };
}

describe("rendering rate", () => {
  it("streamed tokens render once per frame, not once per token", () => {
    // The clock is the test's: 150 ms of tokens, one every 2 ms, with no scheduler's jitter to count.
    vi.useFakeTimers();
    try {
      const { view, presenter, renders } = setup({ frameMs: 30 });
      let tokens = 0;
      for (let at = 0; at < 150; at += 2) {
        presenter.apply(delta("tok "));
        tokens++;
        vi.advanceTimersByTime(2);
      }
      vi.advanceTimersByTime(40);
      expect(tokens).toBe(75);
      // 150 ms of tokens at one render per 30 ms frame: 5 renders, whatever the token count.
      expect(renders()).toBe(5);
      expect(view.getSnapshot().live.text).toBe("tok ".repeat(tokens));
    } finally {
      vi.useRealTimers();
    }
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
    presenter.apply({ type: "tool_call", tool_use_id: "t1", name: "execute_command", kind: "command", input: { command: "ls" }, summary: "$ ls", status: "pending", locations: [] });
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "execute_command", status: "running", decision: { approved: true, by: "auto", reason: "safe" } });
    presenter.apply({ type: "tool_output", tool_use_id: "t1", text: "a\nb\n" });
    expect(snapshot().live.tools[0]).toMatchObject({ status: "running", output: "a\nb\n", outputLines: 2, decision: { by: "auto" } });
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "execute_command", content: "Command: ls\nExit code: 0\nOutput:\na\nb\n", is_error: false, status: "completed" });
    const { live, history } = snapshot();
    expect(live.tools).toEqual([]);
    expect(history[0]).toMatchObject({ kind: "tool", card: { status: "completed", summary: "$ ls", output: "a\nb\n" } });
  });

  it("a card's status is its record's: pending, awaiting approval, running, completed; output alone does not make it running", () => {
    const { presenter, snapshot } = setup();
    const status = () => snapshot().live.tools[0]?.status;
    presenter.apply({ type: "tool_call", tool_use_id: "t1", name: "execute_command", kind: "command", input: { command: "make" }, summary: "$ make", status: "pending", locations: [] });
    expect(status()).toBe("pending");
    presenter.apply({ type: "tool_output", tool_use_id: "t1", text: "early\n" });
    expect(status()).toBe("pending");
    const approval = { category: "all-commands" as const, summary: "$ make", suggested_rule: "execute_command(make *)" };
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "execute_command", status: "awaiting_approval", approval });
    expect(status()).toBe("awaiting_approval");
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "execute_command", status: "running", decision: { approved: true, by: "user", reason: "approved by the user" } });
    expect(status()).toBe("running");
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "execute_command", status: "completed", content: "Exit code: 0", is_error: false });
    expect(snapshot().history.at(-1)).toMatchObject({ kind: "tool", card: { status: "completed", decision: { by: "user" } } });
  });

  it("a denied or cancelled call ends as the record says, with who refused it and what the person said", () => {
    const { presenter, snapshot } = setup();
    for (const id of ["d", "c"]) presenter.apply({ type: "tool_call", tool_use_id: id, name: "write_to_file", kind: "edit", input: { path: "a" }, summary: `write ${id}`, status: "pending", locations: [] });
    presenter.apply({ type: "tool_call_update", tool_use_id: "d", name: "write_to_file", status: "awaiting_approval", approval: { category: "edit", summary: "write d" } });
    const decision = { approved: false, by: "user" as const, reason: "denied by the user", feedback: "not now" };
    presenter.apply({ type: "tool_call_update", tool_use_id: "d", name: "write_to_file", status: "denied", content: "The user denied this operation.", is_error: true, decision });
    presenter.apply({ type: "tool_call_update", tool_use_id: "c", name: "write_to_file", status: "cancelled", content: "Skipped: an earlier call was denied.", is_error: true });
    const cards = snapshot().history.flatMap((i) => (i.kind === "tool" ? [i.card] : []));
    expect(cards.map((c) => [c.summary, c.status])).toEqual([
      ["write d", "denied"],
      ["write c", "cancelled"],
    ]);
    expect(cards[0]!.decision).toEqual(decision);
    expect(snapshot().live.tools).toEqual([]);
  });

  it("an edit awaiting approval prints core's diff from its preview, not one made from the file on disk", () => {
    // What re-reading the file would give differs from the preview: the view must show the preview.
    writeFileSync(path.join(dir, "a.txt"), "something else on disk\n");
    const { presenter, snapshot } = setup();
    presenter.apply({ type: "tool_call", tool_use_id: "t1", name: "write_to_file", kind: "edit", input: { path: "a.txt", content: "one\n2\n" }, summary: "write a.txt", status: "pending", locations: [] });
    const preview = { type: "diff" as const, path: "a.txt", old_text: "one\ntwo\n", new_text: "one\n2\n" };
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "write_to_file", status: "awaiting_approval", approval: { category: "edit", summary: "write a.txt", preview } });
    const proposal = snapshot().history[0];
    expect(proposal).toMatchObject({ kind: "proposal", card: { edit: { path: "a.txt", created: false, added: 1, removed: 1 } } });
    const lines = proposal?.kind === "proposal" ? proposal.card.edit!.lines : [];
    expect(lines).toEqual([
      { type: " ", text: "one", line: 1 },
      { type: "-", text: "two", line: 2 },
      { type: "+", text: "2", line: 2 },
    ]);
    expect(JSON.stringify(lines)).not.toContain("something else on disk");
  });

  it("an edit run without asking (auto-approve, yolo, a rule) ends with the diff its running update carried, drawn on its card", () => {
    const { presenter, snapshot } = setup();
    presenter.apply({ type: "tool_call", tool_use_id: "t1", name: "write_to_file", kind: "edit", input: { path: "b.txt", content: "hello\n" }, summary: "write b.txt", status: "pending", locations: [] });
    const preview = { type: "diff" as const, path: "b.txt", old_text: "hi\n", new_text: "hello\n" };
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "write_to_file", status: "running", preview });
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "write_to_file", status: "completed", content: "Updated b.txt (1 line, was 1).", is_error: false });
    const { history } = snapshot();
    // No proposal: nobody was asked; the card itself carries the diff.
    expect(kinds(history)).toEqual(["tool"]);
    const item = history[0]!;
    const out = drawItem(item);
    expect(out).toContain("✓ write b.txt (+1 −1)");
    expect(out).toMatch(/1 − hi\n\s+1 \+ hello/);
    expect(out).not.toContain("Updated b.txt");
  });

  it("the problems an edit introduced land on its card, bounded and counted", () => {
    const { presenter, snapshot } = setup();
    presenter.apply({ type: "tool_call", tool_use_id: "e1", name: "write_to_file", kind: "edit", input: { path: "a.ts", content: "x" }, summary: "write a.ts", status: "pending", locations: [] });
    presenter.apply({ type: "tool_call", tool_use_id: "e2", name: "write_to_file", kind: "edit", input: { path: "b.ts", content: "y" }, summary: "write b.ts", status: "pending", locations: [] });
    const problems = (n: number) => Array.from({ length: n }, (_, i) => ({ line: i + 1, column: 7, severity: "error" as const, message: `Problem ${i + 1}\nmore detail`, code: "TS2345" }));
    presenter.apply({ type: "diagnostics", tool_use_id: "e1", path: "src/a.ts", server: "typescript", problems: problems(8) });
    presenter.apply({ type: "diagnostics", tool_use_id: "e1", path: "src/c.ts", server: "typescript", problems: problems(5) });
    // A diagnostics event for a call with no card (hidden, or ended) is dropped.
    presenter.apply({ type: "diagnostics", tool_use_id: "nope", path: "x.ts", server: "typescript", problems: problems(1) });
    presenter.apply({ type: "tool_call_update", tool_use_id: "e1", name: "write_to_file", content: "Created a.ts.", is_error: false, status: "completed" });
    presenter.apply({ type: "tool_call_update", tool_use_id: "e2", name: "write_to_file", content: "Created b.ts.", is_error: false, status: "completed" });
    const [first, second] = snapshot().history as Array<Extract<HistoryItem, { kind: "tool" }>>;
    expect(first!.card.problemCount).toBe(13);
    expect(first!.card.problems).toHaveLength(10);
    expect(first!.card.problems![0]).toEqual({ path: "src/a.ts", line: 1, column: 7, code: "TS2345", message: "Problem 1" });
    expect(first!.card.problems![9]).toMatchObject({ path: "src/c.ts", line: 2 });
    expect(second!.card.problems).toBeUndefined();
  });

  it("a replayed approval shows its stored diff on the card, not as a new proposal", () => {
    const { view, snapshot } = setup();
    const preview = { type: "diff" as const, path: "n.txt", old_text: null, new_text: "x\n" };
    new EventPresenter(view).replay(
      [
        { type: "tool_call", tool_use_id: "t1", name: "write_to_file", kind: "edit", input: { path: "n.txt", content: "x\n" }, summary: "write n.txt", status: "pending", locations: [] },
        { type: "tool_call_update", tool_use_id: "t1", name: "write_to_file", status: "awaiting_approval", approval: { category: "edit", summary: "write n.txt", preview } },
        { type: "tool_call_update", tool_use_id: "t1", name: "write_to_file", status: "completed", content: "Created n.txt (1 line).", is_error: false },
      ],
      false,
    );
    expect(kinds(snapshot().history)).toEqual(["tool"]);
    expect(snapshot().history[0]).toMatchObject({ card: { edit: { created: true, added: 1 }, status: "completed" } });
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

  it("the presenter's fold holds the turn in progress, not every turn of the session", () => {
    const { presenter, snapshot } = setup();
    for (let i = 0; i < 50; i++) {
      presenter.apply({ type: "turn_start", turn: i + 1, reason: "next_turn" });
      presenter.apply({ type: "tool_call", tool_use_id: `t${i}`, name: "read_file", kind: "unknown", input: { path: "a" }, summary: `read ${i}`, status: "pending", locations: [] });
      presenter.apply({ type: "tool_call_update", tool_use_id: `t${i}`, name: "read_file", content: "x".repeat(1000), is_error: false, status: "completed" });
    }
    expect(snapshot().history).toHaveLength(50);
    expect(presenter["transcript"].items).toHaveLength(1);
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

  it('"always allow" answers with remember: "task" or "workspace" so the task adds the suggested rule; never for a protected file', async () => {
    const { view } = setup();
    const host = new InteractiveHost(view);
    const signal = new AbortController().signal;
    const request = { tool_use_id: "1", tool: "write_to_file", category: "edit" as const, summary: "write a", input: {}, suggested_rule: "write_to_file(**)" };
    const answer = host.approve(request, signal);
    if (view.prompt?.kind === "approval") view.prompt.resolve({ approved: true, remember: "task" });
    await expect(answer).resolves.toEqual({ approved: true, remember: "task" });
    const saved = host.approve({ ...request, tool_use_id: "3" }, signal);
    if (view.prompt?.kind === "approval") view.prompt.resolve({ approved: true, remember: "workspace" });
    await expect(saved).resolves.toEqual({ approved: true, remember: "workspace" });
    // The host keeps no list of its own: the next request is the task's to answer, so it reaches the person.
    const guarded = host.approve({ ...request, tool_use_id: "2", protected: { path: ".cairnignore", reason: "the person's list" } }, signal);
    expect(view.prompt?.kind).toBe("approval");
    if (view.prompt?.kind === "approval") view.prompt.resolve({ approved: true, remember: "workspace" });
    await expect(guarded).resolves.toEqual({ approved: true });
  });
});

describe("the model's and tools' escape sequences", () => {
  const osc52 = "\u001b]52;c;ZWNobyBvd25lZA==\u0007";
  const clear = "\u001b[2J\u001b[H";
  // Ink's own colour codes aside (the theme is off here), no byte that acts on a terminal.
  const acting = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

  it("never reach what the view holds or draws: replies split mid-sequence, cards, output, errors, prompts", async () => {
    const { view, presenter, snapshot } = setup();
    presenter.apply({ type: "turn_start", turn: 1, reason: "start" });
    presenter.apply(delta(`Done${osc52.slice(0, 7)}`));
    presenter.apply(delta(`${osc52.slice(7)}${clear.slice(0, 2)}`));
    presenter.apply(delta(`${clear.slice(2)} and clean.\n`));
    presenter.apply({ type: "tool_call", tool_use_id: "c1", name: "execute_command", kind: "command", input: { command: `echo ${clear}` }, summary: `$ echo ${clear}hi`, status: "pending", locations: [] });
    presenter.apply({ type: "tool_output", tool_use_id: "c1", text: `out${osc52}put\n` });
    presenter.apply({ type: "tool_call_update", tool_use_id: "c1", name: "execute_command", status: "failed", content: `Exit code: 1${clear}`, is_error: true });
    presenter.apply({ type: "error", kind: "model", message: `bad \u009b2J\u202eterm` });
    const host = new InteractiveHost(view);
    const asked = host.ask(`Which${osc52}?`, [`a${clear}`, "b"], new AbortController().signal);
    const state = snapshot();
    const drawn = state.history.map(drawItem).join("\n");
    expect(JSON.stringify(state)).not.toMatch(/\\u001b|\\u0007|\\u009b|\\u202e/);
    expect(drawn).not.toMatch(acting);
    expect(drawn).toContain("Done and clean.");
    expect(drawn).toContain("echo hi");
    expect(drawn).toContain("bad term");
    expect(state.prompt).toMatchObject({ kind: "question", question: "Which?", options: ["a", "b"] });
    if (view.prompt?.kind === "question") view.prompt.resolve("b");
    await expect(asked).resolves.toBe("b");
  });
});
