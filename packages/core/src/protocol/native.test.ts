import { describe, expect, it } from "vitest";
import type { ModelEvent } from "../model/types.js";
import { readFileTool } from "../tools/read-file.js";
import { writeToFileTool } from "../tools/write-to-file.js";
import { attemptCompletionTool } from "../tools/attempt-completion.js";
import { nativeProtocol } from "./native.js";
import { textCallNote } from "./text-calls.js";
import type { ProtocolEvent } from "./types.js";

const TOOLS = [readFileTool, writeToFileTool, attemptCompletionTool];

/** Streams `text` in chunks of `size` (and any native events after it), returning every protocol event. */
function run(text: string, size: number, extra: ModelEvent[] = []): ProtocolEvent[] {
  const parser = nativeProtocol.createParser(TOOLS, "msg_1");
  const events: ProtocolEvent[] = [];
  for (let i = 0; i < text.length; i += size) events.push(...parser.push({ type: "text-delta", text: text.slice(i, i + size) }));
  for (const e of extra) events.push(...parser.push(e));
  events.push(...parser.end());
  return events;
}

const calls = (events: ProtocolEvent[]) => events.flatMap((e) => (e.type === "call" ? [e.call] : []));
const text = (events: ProtocolEvent[]) => events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("");

describe("native protocol: tool blocks written as XML text", () => {
  const reply = "Let me look at it.\n<read_file>\n<path>src/a.ts</path>\n</read_file>\nThen I'll decide.";

  it.each([1, 3, 7, reply.length])("runs a complete block of an offered tool when the reply has no native call (chunks of %i)", (size) => {
    const events = run(reply, size);
    expect(text(events)).toBe(reply);
    expect(calls(events)).toEqual([{ id: "msg_1_text_0", name: "read_file", input: { path: "src/a.ts" }, fromText: true }]);
    expect(events.findIndex((e) => e.type === "call-start")).toBe(events.findIndex((e) => e.type === "call") - 1);
  });

  it("keeps file text exact and coerces params as the xml protocol does", () => {
    const events = run("<write_to_file>\n<path>n.txt</path>\n<content>\n  a </content> b\n</content>\n</write_to_file>", 5);
    expect(calls(events)).toEqual([{ id: "msg_1_text_0", name: "write_to_file", input: { path: "n.txt", content: "  a </content> b" }, fromText: true }]);
  });

  it("leaves the text alone when the reply also has a native call", () => {
    const events = run(reply, 4, [
      { type: "tool-call-start", id: "t1", name: "attempt_completion" },
      { type: "tool-call", id: "t1", name: "attempt_completion", argsText: '{"result":"ok"}' },
    ]);
    expect(calls(events)).toEqual([{ id: "t1", name: "attempt_completion", input: { result: "ok" } }]);
  });

  it("keeps the provider's id beside Cairn's, into the stored message, to send the call back under it", () => {
    const [call] = calls(run("", 1, [{ type: "tool-call", id: "tool_1", providerId: "call_0", name: "attempt_completion", argsText: '{"result":"ok"}' }]));
    expect(call).toEqual({ id: "tool_1", providerId: "call_0", name: "attempt_completion", input: { result: "ok" } });
    expect(nativeProtocol.assistantMessage("", [], [call!]).content).toEqual([{ type: "tool-call", id: "tool_1", providerId: "call_0", name: "attempt_completion", input: { result: "ok" } }]);
  });

  it.each([
    ["in a fenced code block", "Example:\n```xml\n<read_file>\n<path>a</path>\n</read_file>\n```\n"],
    ["in inline code", "Call `<read_file><path>a</path></read_file>` to read."],
    ["cut off before its closing tag", "<read_file>\n<path>a</path>\n"],
    ["of a tool that is not offered", "<execute_command>\n<command>ls</command>\n</execute_command>"],
  ])("does not run a block %s", (_, message) => {
    expect(calls(run(message, 2))).toEqual([]);
  });

  it("passes an ambiguous block on with the reason, so nothing runs and the model is told", () => {
    const events = run("<write_to_file>\n<path>a</path>\n<content>\nx\n</content>\n</write_to_file>\n</content>", 3);
    const [call] = calls(events);
    expect(call?.inputError).toMatch(/ambiguous.*It did not run and nothing was written/s);
  });

  it("words the note that tells the model to use function calls", () => {
    expect(textCallNote(["read_file", "read_file", "write_to_file"])).toBe(
      "[You wrote <read_file>, <write_to_file> as XML in your reply instead of calling the tool. It ran this time, but this session uses function calling: call tools as function calls, never as XML in your text.]",
    );
  });
});
