import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { IgnoreRules } from "../policy/ignore-rules.js";
import { taskProgressNote } from "../prompt/focus-chain-text.js";
import { defaultFocusChainSettings, FocusChain } from "./focus-chain.js";
import { TaskPrompt } from "./task-prompt.js";

const cwd = mkdtempSync(path.join(os.tmpdir(), "cairn-task-prompt-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const prompt = (environmentDetails = true) =>
  new TaskPrompt({ cwd, home: undefined, replacement: undefined, customInstructions: undefined, mcp: undefined, sandbox: undefined, taskProgress: true, environmentDetails, activePaths: new Set(), ignore: new IgnoreRules(cwd) });

describe("TaskPrompt's notes beside the conversation", () => {
  it("tells the environment when it changed: the mode, a tenth of the window; after forgetShown, again", () => {
    const p = prompt();
    const focus = new FocusChain(defaultFocusChainSettings);
    const now = { mode: "act" as const, contextTokens: 3_000, contextWindow: 200_000, focus };
    p.environmentShown(now);
    expect(p.openingNotes(now)).toEqual([]);
    expect(p.openingNotes({ ...now, contextTokens: 15_000 })).toEqual([]);
    expect(p.openingNotes({ ...now, mode: "plan" })).toEqual([expect.stringMatching(/^\[Environment: .* · PLAN mode · context 3,000 \/ 200,000 tokens \(2%\)\]$/)]);
    expect(p.openingNotes({ ...now, mode: "plan" })).toEqual([]);
    expect(p.openingNotes({ ...now, mode: "plan", contextTokens: 41_000 })).toEqual([expect.stringMatching(/context 41,000 \/ 200,000 tokens \(21%\)/)]);
    p.forgetShown(focus);
    expect(p.openingNotes({ ...now, mode: "plan", contextTokens: 41_000 })).toHaveLength(1);
  });

  it("reshowNotes gives the environment and the checklist again, whatever was shown before", () => {
    const p = prompt();
    const focus = new FocusChain(defaultFocusChainSettings);
    focus.update(["- [x] a\n- [ ] b"]);
    const now = { mode: "act" as const, contextTokens: 3_000, contextWindow: 200_000, focus };
    p.environmentShown(now);
    expect(p.openingNotes(now)).toEqual([]);
    const again = p.reshowNotes(now);
    expect(again).toHaveLength(2);
    expect(again[0]).toMatch(/^\[Environment: /);
    expect(again[1]).toBe(taskProgressNote([{ text: "a", done: true }, { text: "b", done: false }]));
    expect(p.openingNotes(now)).toEqual([]);
  });

  it("with environment details off, no environment line ever", () => {
    const p = prompt(false);
    const focus = new FocusChain(defaultFocusChainSettings);
    expect(p.reshowNotes({ mode: "act", contextTokens: 3_000, contextWindow: 200_000, focus })).toEqual([]);
  });
});
