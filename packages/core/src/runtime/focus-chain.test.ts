import { describe, expect, it } from "vitest";
import { parseChecklist, taskProgressNote } from "../prompt/focus-chain-text.js";
import { nativeProtocolWith } from "../protocol/native.js";
import { xmlProtocol } from "../protocol/xml/xml-protocol.js";
import { readFileTool } from "../tools/read-file.js";
import { defaultFocusChainSettings, FocusChain } from "./focus-chain.js";

const settings = { ...defaultFocusChainSettings, remindEveryTurns: 3 };

describe("parseChecklist", () => {
  it("reads - [ ] / - [x] lines (also * and numbered) and ignores the rest", () => {
    expect(parseChecklist("Plan:\n- [x] Read the parser\n* [ ] Fix the bug\n2. [X] Run tests\nnot an item\n- [] broken")).toEqual([
      { text: "Read the parser", done: true },
      { text: "Fix the bug", done: false },
      { text: "Run tests", done: true },
    ]);
  });
});

describe("FocusChain", () => {
  it("keeps the last checklist of a reply and reports it only when it changed", () => {
    const chain = new FocusChain(settings);
    expect(chain.update([undefined, "- [ ] a\n- [ ] b", "- [x] a\n- [ ] b"])).toEqual([
      { text: "a", done: true },
      { text: "b", done: false },
    ]);
    expect(chain.update(["- [x] a\n- [ ] b"])).toBeUndefined();
    expect(chain.update(["no checklist here"])).toBeUndefined();
    expect(chain.current).toEqual([
      { text: "a", done: true },
      { text: "b", done: false },
    ]);
  });

  it("reminds after the set number of turns without an update; the list the model just sent is not repeated back", () => {
    const chain = new FocusChain(settings);
    expect(chain.notes()).toEqual([]);
    expect(chain.notes()).toEqual([]);
    expect(chain.notes().join("\n")).toMatch(/Reminder: send task_progress/);
    chain.update(["- [ ] a"]);
    expect(chain.notes()).toEqual([]);
    chain.notes();
    expect(chain.notes()).toEqual([expect.stringMatching(/has not changed for several turns/)]);
  });

  it("shows the list again where the conversation may no longer hold it: a resumed task, after forgetShown (compaction, restore)", () => {
    const resumed = new FocusChain(settings, [{ text: "a", done: true }]);
    expect(resumed.notes()).toEqual([taskProgressNote([{ text: "a", done: true }])]);
    expect(resumed.notes()).toEqual([]);
    resumed.forgetShown();
    expect(resumed.unseenList()).toEqual([taskProgressNote([{ text: "a", done: true }])]);
    expect(resumed.unseenList()).toEqual([]);
  });

  it("asks once per run about open items at completion", () => {
    const chain = new FocusChain(settings);
    expect(chain.completionCheck()).toBeUndefined();
    chain.update(["- [x] a\n- [ ] b"]);
    expect(chain.completionCheck()).toMatch(/still has open items:\n- \[ \] b/);
    expect(chain.completionCheck()).toBeUndefined();
    chain.newRun();
    expect(chain.completionCheck()).toMatch(/open items/);
    chain.update(["- [x] a\n- [x] b"]);
    chain.newRun();
    expect(chain.completionCheck()).toBeUndefined();
  });

  it("finds its list again in a resumed conversation, and does nothing when off", () => {
    const chain = FocusChain.fromMessages(settings, [
      { role: "user", content: [{ type: "text", text: "task" }] },
      { role: "user", content: [{ type: "text", text: "[Environment: …]" }, { type: "text", text: taskProgressNote([{ text: "a", done: true }, { text: "b", done: false }]) }] },
      { role: "assistant", content: [{ type: "text", text: "ok" }] },
    ]);
    expect(chain.current).toEqual([
      { text: "a", done: true },
      { text: "b", done: false },
    ]);
    // Where no note carries it, the model's last call that sent one: native input, or the xml tag.
    const native = FocusChain.fromMessages(settings, [
      { role: "user", content: [{ type: "text", text: "task" }] },
      { role: "assistant", content: [{ type: "tool-call", id: "c1", name: "read_file", input: { path: "a", task_progress: "- [x] read\n- [ ] fix" } }] },
    ]);
    expect(native.current).toEqual([
      { text: "read", done: true },
      { text: "fix", done: false },
    ]);
    const xml = FocusChain.fromMessages(settings, [{ role: "assistant", content: [{ type: "text", text: "<read_file>\n<path>a</path>\n<task_progress>\n- [ ] read\n</task_progress>\n</read_file>" }] }]);
    expect(xml.current).toEqual([{ text: "read", done: false }]);
    const off = new FocusChain({ ...settings, enabled: false });
    expect(off.update(["- [ ] a"])).toBeUndefined();
    expect(off.notes()).toEqual([]);
  });
});

describe("task_progress in the protocols", () => {
  const tools = [readFileTool];
  it("native: offered on every tool when on, taken out of the input before validation, kept in the recorded call", () => {
    const on = nativeProtocolWith(true);
    expect(on.requestTools(tools)![0]!.inputSchema).toMatchObject({ properties: { task_progress: { type: "string" } } });
    expect(JSON.stringify(nativeProtocolWith(false).requestTools(tools))).not.toContain("task_progress");
    const parser = on.createParser(tools, "m");
    const [event] = parser.push({ type: "tool-call", id: "c1", name: "read_file", argsText: JSON.stringify({ path: "a.ts", task_progress: "- [ ] read a" }) });
    expect(event).toEqual({ type: "call", call: { id: "c1", name: "read_file", input: { path: "a.ts" }, taskProgress: "- [ ] read a" } });
    if (event?.type !== "call") throw new Error("no call");
    expect(readFileTool.parameters.strict().safeParse(event.call.input).success).toBe(true);
    const recorded = on.assistantMessage("", [], [event.call]);
    expect(recorded.content[0]).toMatchObject({ type: "tool-call", input: { path: "a.ts", task_progress: "- [ ] read a" } });
  });

  it("xml: a <task_progress> block inside any tool is taken out of the input", () => {
    const parser = xmlProtocol.createParser(tools, "m");
    const events = [...parser.push({ type: "text-delta", text: "<read_file>\n<path>a.ts</path>\n<task_progress>\n- [x] plan\n- [ ] read a\n</task_progress>\n</read_file>" }), ...parser.end()];
    const call = events.find((e) => e.type === "call");
    expect(call).toMatchObject({ call: { name: "read_file", input: { path: "a.ts" }, taskProgress: "- [x] plan\n- [ ] read a" } });
    expect(call?.type === "call" && "task_progress" in call.call.input).toBe(false);
  });
});
