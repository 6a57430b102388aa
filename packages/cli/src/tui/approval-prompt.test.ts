import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ApprovalRequest } from "@cairn/core";
import { createElement } from "react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Prompt } from "./view-types.js";

process.env.FORCE_COLOR = "0";
const { renderToString } = await import("ink");
const { PromptView } = await import("./prompts.js");
const { HistoryItemView } = await import("./history-item.js");
const { EventPresenter } = await import("./present-events.js");
const { SessionView } = await import("./session-view.js");
const { ThemeContext, themeFor } = await import("./theme.js");

/** The approval prompt draws what core put in the request, as given: nothing is read from disk. */

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-approval-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "");
const draw = (element: ReturnType<typeof createElement>) => plain(renderToString(createElement(ThemeContext.Provider, { value: themeFor({ NO_COLOR: "1" }) }, element), { columns: 100 }));
const drawPrompt = (request: ApprovalRequest) => draw(createElement(PromptView, { prompt: { kind: "approval", request, resolve: () => {} } satisfies Prompt, id: 1 }));

const edit = (preview: ApprovalRequest["preview"], extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  tool_use_id: "t1",
  tool: "write_to_file",
  category: "edit",
  summary: "write a.txt",
  input: { path: "a.txt", content: "one\n2\nthree\nfour\n" },
  suggested_rule: "write_to_file(a.txt)",
  ...(preview ? { preview } : {}),
  ...extra,
});

describe("the approval prompt", () => {
  it("counts the diff of the preview's two texts, not of the file as it is on disk", () => {
    // On disk the file has nothing in common with the preview's old text: a diff from disk would say (+4 −1).
    writeFileSync(path.join(dir, "a.txt"), "unrelated\n");
    const out = drawPrompt(edit({ type: "diff", path: "a.txt", old_text: "one\ntwo\nthree\n", new_text: "one\n2\nthree\nfour\n" }));
    expect(out).toContain("Apply this edit? a.txt (+2 −1)");
    const fresh = drawPrompt(edit({ type: "diff", path: "new.txt", old_text: null, new_text: "a\nb\n" }));
    expect(fresh).toContain("Apply this new file? new.txt (new file, 2 lines)");
  });

  it("the proposal printed above it is the preview's diff, line by line", () => {
    writeFileSync(path.join(dir, "a.txt"), "unrelated\n");
    const view = new SessionView({ frameMs: 0, columns: 100, rows: 40 });
    const presenter = new EventPresenter(view);
    presenter.apply({ type: "tool_call", tool_use_id: "t1", name: "write_to_file", kind: "edit", input: { path: "a.txt" }, summary: "write a.txt", status: "pending", locations: [path.join(dir, "a.txt")] });
    const preview = { type: "diff" as const, path: "a.txt", old_text: "one\ntwo\nthree\n", new_text: "one\n2\nthree\n" };
    presenter.apply({ type: "tool_call_update", tool_use_id: "t1", name: "write_to_file", status: "awaiting_approval", approval: { category: "edit", summary: "write a.txt", preview } });
    view.flush();
    const item = view.getSnapshot().history[0]!;
    const out = draw(createElement(HistoryItemView, { item, width: 100 }));
    expect(out).toContain("Proposed change to a.txt (+1 −1)");
    expect(out).toMatch(/2 − two\n\s+2 \+ 2/);
    expect(out).not.toContain("unrelated");
    view.dispose();
  });

  it("a command shows the exact command, the classifier's reasons and the sandbox it runs in", () => {
    const out = drawPrompt({
      tool_use_id: "t2",
      tool: "execute_command",
      category: "all-commands",
      summary: "$ rm -rf build",
      input: { command: "rm -rf build" },
      preview: { type: "command", command: "rm -rf build", cwd: dir, risk: "needs_approval", reasons: ["deletes files"], sandbox: { mode: "workspace-write", network: "off", engine: "bubblewrap" } },
      suggested_rule: "execute_command(rm -rf build)",
    });
    expect(out).toContain("Run this command?");
    expect(out).toContain("$ rm -rf build");
    expect(out).toContain("needs approval: deletes files");
    expect(out).toContain("sandbox: workspace-write, network off");
  });

  it("offers the suggested rule for this task and for this workspace", () => {
    const out = drawPrompt(edit({ type: "diff", path: "a.txt", old_text: "a\n", new_text: "b\n" }));
    expect(out).toContain("Yes, and allow write_to_file(a.txt) for the rest of this task (a)");
    expect(out).toContain("Yes, and always allow write_to_file(a.txt) in this workspace (w)");
  });

  it("never offers always-allow for a protected file, even when a rule is suggested", () => {
    const out = drawPrompt(edit({ type: "diff", path: ".cairnignore", old_text: "a\n", new_text: "b\n" }, { protected: { path: ".cairnignore", reason: "it decides what Cairn may read" } }));
    expect(out).toContain("Protected file .cairnignore");
    expect(out).not.toContain("always allow");
    expect(out).not.toContain("for the rest of this task");
  });

  it("an edit that will fail says why, in place of a diff", () => {
    const out = drawPrompt(edit({ type: "diff_unavailable", path: "a.txt", reason: "this edit will fail: SEARCH block 1 not found" }, { tool: "replace_in_file" }));
    expect(out).toContain("Apply this edit? a.txt");
    expect(out).toContain("this edit will fail: SEARCH block 1 not found");
    expect(out).not.toContain("+0 −0");
    expect(out).not.toContain("The full diff is shown above");
  });

  it("an edit without a preview says there is no diff to show rather than an empty +0 −0", () => {
    const out = drawPrompt(edit(undefined, { tool: "replace_in_file" }));
    expect(out).toContain("Apply this edit? a.txt");
    expect(out).toContain("No diff to show");
    expect(out).not.toContain("+0 −0");
  });
});
