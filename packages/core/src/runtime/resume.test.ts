import { describe, expect, it } from "vitest";
import type { Message } from "../model/types.js";
import { nativeProtocol } from "../protocol/native.js";
import { xmlProtocol } from "../protocol/xml/xml-protocol.js";
import { allTools } from "../tools/registry.js";
import { repairInterrupted, resumeText } from "./resume.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

describe("repairInterrupted", () => {
  it("native: every call of the last message gets its recorded result or an interrupted one", () => {
    const assistant: Message = {
      role: "assistant",
      content: [
        { type: "tool-call", id: "a", name: "write_to_file", input: { path: "x", content: "1" } },
        { type: "tool-call", id: "b", name: "read_file", input: { path: "x" } },
      ],
    };
    const repaired = repairInterrupted([user("go"), assistant], [{ call: { id: "a", name: "write_to_file", input: {} }, result: { content: "Created x" } }], nativeProtocol, allTools);
    const results = repaired[2]!.content.filter((p) => p.type === "tool-result");
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([["a", false], ["b", true]]);
    expect(JSON.stringify(results[1])).toContain("Interrupted");
  });

  it("xml: calls are found by re-reading the message text", () => {
    const assistant: Message = { role: "assistant", content: [{ type: "text", text: "Reading.\n<read_file>\n<path>a.txt</path>\n</read_file>" }] };
    const repaired = repairInterrupted([user("go"), assistant], [], xmlProtocol, allTools);
    expect(repaired).toHaveLength(3);
    expect(JSON.stringify(repaired[2])).toMatch(/\[read_file for 'a.txt'\] Error:\\n\[Interrupted/);
  });

  it("results of a reply lost while streaming become a note for the model", () => {
    const repaired = repairInterrupted([user("go")], [{ call: { id: "a", name: "write_to_file", input: { path: "x" } }, result: { content: "Created x (1 line)." } }], nativeProtocol, allTools);
    expect(repaired).toHaveLength(2);
    expect(JSON.stringify(repaired[1])).toContain("write_to_file");
    expect(JSON.stringify(repaired[1])).toContain("Created x (1 line).");
  });

  it("leaves a complete conversation as it is", () => {
    const messages = [user("go"), { role: "assistant", content: [{ type: "text", text: "hi" }] } as Message, user("more")];
    expect(repairInterrupted(messages, [], nativeProtocol, allTools)).toEqual(messages);
  });
});

describe("resumeText", () => {
  it("frames the resume by how the task stopped", () => {
    expect(resumeText({ status: "needs_input", interrupted: false, planApproved: false, message: "beta" })).toBe("<answer>\nbeta\n</answer>");
    expect(resumeText({ status: "needs_input", interrupted: false, planApproved: true, message: undefined })).toMatch(/approved your plan/);
    expect(resumeText({ status: "running", interrupted: true, planApproved: false, message: undefined })).toMatch(/interrupted.*\n\nContinue the task\./s);
    expect(resumeText({ status: "completed", interrupted: false, planApproved: false, message: "Also add tests" })).toBe("Also add tests");
  });
});
