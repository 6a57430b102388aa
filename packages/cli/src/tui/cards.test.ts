import { createElement, type ReactElement } from "react";
import { describe, expect, it } from "vitest";
import { diffHunks } from "@cairn/core";
import type { HistoryItem, StatusState, ToolCard } from "./view-types.js";

// Colours as a terminal gets them: chalk (under ink) reads FORCE_COLOR once, when first loaded.
process.env.FORCE_COLOR = "1";
const { renderToString } = await import("ink");
const { HistoryItemView } = await import("./history-item.js");
const { StatusLine } = await import("./status-line.js");
const { ThemeContext, themeFor } = await import("./theme.js");
const { historyCardSize, ToolCardView } = await import("./tool-card.js");

// eslint-disable-next-line no-control-regex
const ansi = /\u001b\[[0-9;]*m/g;
const plain = (text: string) => text.replace(ansi, "");

function draw(element: ReactElement, options: { columns?: number; noColor?: boolean } = {}): string {
  const theme = themeFor(options.noColor ? { NO_COLOR: "1" } : {});
  return renderToString(createElement(ThemeContext.Provider, { value: theme }, element), { columns: options.columns ?? 80 });
}

function card(overrides: Partial<ToolCard>): ToolCard {
  return { id: "c1", name: "read_file", kind: "read", summary: "read src/a.ts", input: {}, status: "completed", output: "", outputLines: 0, ...overrides };
}

const drawCard = (c: ToolCard, options: { columns?: number; noColor?: boolean } = {}) => draw(createElement(ToolCardView, { card: c, size: historyCardSize(options.columns ?? 80) }), options);
const drawItem = (item: HistoryItem, options: { columns?: number; noColor?: boolean } = {}) => draw(createElement(HistoryItemView, { item, width: options.columns ?? 80 }), options);

function widest(text: string): number {
  return Math.max(...plain(text).split("\n").map((line) => [...line].length));
}

const green = "\u001b[32m";
const red = "\u001b[31m";

describe("tool cards", () => {
  it("a read is one line with its size", () => {
    const out = plain(drawCard(card({ result: "line 1\nline 2\nline 3" })));
    expect(out).toBe("✓ read src/a.ts · 3 lines");
  });

  it("a listing or search is one line too, with what it found", () => {
    const out = plain(drawCard(card({ name: "search_files", summary: 'search "TODO" in src', result: "Found 4 results.\nsrc/a.ts:1: TODO" })));
    expect(out.split("\n")).toHaveLength(1);
    expect(out).toContain('search "TODO" in src · 2 lines');
  });

  it("an edit shows the problems it introduced under it, in the error colour, the rest counted", () => {
    const problems = [
      { path: "src/a.ts", line: 3, column: 7, code: "TS2345", message: "Argument of type 'string' is not assignable to parameter of type 'number'." },
      { path: "b.py", line: 1, column: 1, message: "Type mismatch" },
    ];
    const out = drawCard(card({ name: "write_to_file", kind: "edit", summary: "write src/a.ts", result: "Wrote src/a.ts.", problems, problemCount: 5 }));
    expect(plain(out).split("\n")).toEqual([
      "✓ write src/a.ts · Wrote src/a.ts",
      "  5 new problems:",
      "    src/a.ts:3:7 TS2345 Argument of type 'string' is not assignable to paramete…",
      "    b.py:1:1 Type mismatch",
      "    … 3 more",
    ]);
    expect(out).toContain(`${red}  src/a.ts:3:7 TS2345`);
    // Without problems, nothing is added.
    expect(plain(drawCard(card({ name: "write_to_file", kind: "edit", summary: "write src/a.ts", result: "Wrote src/a.ts." })))).toBe("✓ write src/a.ts · Wrote src/a.ts");
  });

  it("an edit shows its change as a coloured diff, unchanged stretches folded", () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
    const after = before.replace("line 3", "line three").replace("line 18", "line eighteen");
    const edit = { path: "a.txt", created: false, ...diffHunks(before, after) };
    const out = drawCard(card({ name: "replace_in_file", kind: "edit", summary: "edit a.txt", edit }));
    const text = plain(out);
    expect(text).toContain("✓ edit a.txt (+2 −2)");
    expect(text).toMatch(/3 − line 3\n\s+3 \+ line three/);
    expect(text).toContain("⋮ 10 unchanged lines");
    expect(out).toContain(`${green} 3 + line three`);
    expect(out).toContain(`${red} 3 − line 3`);
  });

  it("an edit whose diff was shown for approval does not repeat it; a new file says so", () => {
    const edit = { path: "new.ts", created: true, ...diffHunks("", "a\nb\n") };
    const out = plain(drawCard(card({ name: "write_to_file", kind: "edit", summary: "write new.ts", edit, shownForApproval: true })));
    expect(out).toBe("✓ write new.ts (new file, 2 lines)");
  });

  it("a command shows its exit code and the end of its output, folded", () => {
    const output = Array.from({ length: 12 }, (_, i) => `out ${i + 1}`).join("\n");
    const out = plain(drawCard(card({ name: "execute_command", kind: "command", summary: "$ npm test", output, outputLines: 12, result: "Command: npm test\nExit code: 0\nOutput:\n..." })));
    expect(out.split("\n")[0]).toBe("✓ $ npm test · exit 0");
    expect(out).toContain("… 7 lines above (ctrl-o shows all)");
    expect(out).toContain("out 12");
    expect(out).not.toContain("out 7\n");
  });

  it("a denied command says who denied it and what the person said", () => {
    const out = plain(drawCard(card({ name: "execute_command", kind: "command", summary: "$ rm -rf build", status: "denied", decision: { approved: false, by: "user", reason: "denied by the user", feedback: "use git clean" } })));
    expect(out).toBe("⊘ $ rm -rf build\n  denied by you\n  you said: use git clean");
  });

  it("a failed call shows the first line of its error", () => {
    const out = plain(drawCard(card({ status: "failed", result: "File not found: src/a.ts\nCheck the path." })));
    expect(out).toBe("✗ read src/a.ts\n  File not found: src/a.ts …");
  });
});

describe("history items", () => {
  it("the proposal before an approval prints the whole diff, long lines wrapped rather than cut", () => {
    const long = `const message = "${"x".repeat(120)}";`;
    const edit = { path: "a.ts", created: false, ...diffHunks("old\n", `${long}\n`) };
    const out = plain(drawItem({ key: 1, kind: "proposal", card: card({ kind: "edit", edit }) }));
    expect(out).toContain("? Proposed change to a.ts (+1 −1)");
    expect(out.replace(/\s+/g, "")).toContain(long.replace(/\s+/g, ""));
  });

  it("a question lists its options; results, notices and errors have their own marks", () => {
    expect(plain(drawItem({ key: 1, kind: "question", question: "Which db?", options: ["pg", "sqlite"] }))).toBe("\n? Which db?\n  1. pg\n  2. sqlite");
    expect(plain(drawItem({ key: 2, kind: "result", subtype: "success", text: "Fixed it", detail: "2 turns" }))).toBe("\n✓ Fixed it\n  2 turns");
    expect(plain(drawItem({ key: 3, kind: "result", subtype: "error_aborted", text: "Stopped.", detail: "1 turn" }))).toContain("⊘ Stopped.");
    expect(plain(drawItem({ key: 4, kind: "notice", level: "warning", text: "careful" }))).toBe("! careful");
    expect(plain(drawItem({ key: 5, kind: "error", text: "boom" }))).toBe("✗ boom");
    expect(plain(drawItem({ key: 6, kind: "reasoning", text: "a b c", words: 3 }))).toContain("∴ reasoning, 3 words (folded");
  });
});

describe("terminals", () => {
  const status: StatusState = {
    mode: "plan",
    provider: "anthropic",
    model: "claude-sonnet-4-5-20250929",
    contextTokens: 12_345,
    contextWindow: 200_000,
    costUsd: 0.0123,
    checkpoints: 3,
    yolo: false,
  };

  it("the status line adds the context percentage and key hints when there is room", () => {
    const out = plain(draw(createElement(StatusLine, { status: { ...status, model: "gpt-5" }, width: 120 }), { columns: 120 }));
    expect(out).toBe(" PLAN  gpt-5 · 12k/200k tokens (6%) · $0.0123 · 3 checkpoints  shift+tab: plan/act · /help");
  });

  it("the status line says a cost it cannot price is unknown, not $?", () => {
    const out = plain(draw(createElement(StatusLine, { status: { ...status, model: "local-coder", costUsd: null }, width: 120 }), { columns: 120 }));
    expect(out).toContain("local-coder · 12k/200k tokens (6%) · cost unknown · 3 checkpoints");
    expect(out).not.toContain("$?");
  });

  it("the status line marks usage a server did not report as estimated", () => {
    const out = plain(draw(createElement(StatusLine, { status: { ...status, model: "local-coder", contextEstimated: true }, width: 120 }), { columns: 120 }));
    expect(out).toContain("local-coder · ~12k/200k tokens (estimated) (6%) · ");
  });

  it("the status line shows mode, model, context, cost and checkpoints on one line of 80 columns", () => {
    const out = plain(draw(createElement(StatusLine, { status, width: 80 })));
    expect(out.split("\n")).toHaveLength(1);
    expect(out).toBe(" PLAN  claude-sonnet-4-5-20250929 · 12k/200k tokens · $0.0123 · 3 checkpoints");
    expect(widest(out)).toBeLessThanOrEqual(80);
  });

  it("every card fits 80 columns", () => {
    const longPath = `src/${"deep/".repeat(20)}file.ts`;
    const edit = { path: longPath, created: false, ...diffHunks("a\n", `${"y".repeat(200)}\n`) };
    const cards = [
      card({ summary: `read ${longPath}`, result: "x" }),
      card({ kind: "edit", name: "write_to_file", summary: `write ${longPath}`, edit }),
      card({ kind: "command", name: "execute_command", summary: `$ ${"echo x && ".repeat(20)}`, output: `${"z".repeat(300)}\n`, outputLines: 1 }),
    ];
    for (const c of cards) expect(widest(drawCard(c, { columns: 80 }))).toBeLessThanOrEqual(80);
  });

  it("with NO_COLOR nothing is coloured and the symbols still carry the meaning", () => {
    const edit = { path: "a.txt", created: false, ...diffHunks("old\n", "new\n") };
    const coloured = drawCard(card({ kind: "edit", name: "write_to_file", summary: "write a.txt", edit }));
    const bare = drawCard(card({ kind: "edit", name: "write_to_file", summary: "write a.txt", edit }), { noColor: true });
    expect(coloured).toMatch(/\u001b\[3[0-7]m/);
    expect(bare).not.toMatch(/\u001b\[(3[0-7]|9[0-7]|38;)/);
    expect(plain(bare)).toContain("1 − old");
    expect(plain(bare)).toContain("1 + new");
    expect(plain(bare)).toContain("✓ write a.txt");
    expect(draw(createElement(StatusLine, { status, width: 80 }), { noColor: true })).not.toMatch(/\u001b\[(3[0-7]|9[0-7]|38;)/);
  });
});
