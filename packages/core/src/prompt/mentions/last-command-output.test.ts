import { describe, expect, it } from "vitest";
import type { Message } from "../../model/types.js";
import { lastCommandOutput } from "./last-command-output.js";

describe("lastCommandOutput", () => {
  it("finds the latest execute_command result, native or xml, skipping other tools", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "tool-result", toolCallId: "1", toolName: "execute_command", isError: false, content: [{ type: "text", text: "first run" }] }] },
      { role: "user", content: [{ type: "text", text: "[execute_command for 'npm test'] Result:\nExit code: 1\nOutput:\nFAIL a.test.ts" }] },
      { role: "user", content: [{ type: "tool-result", toolCallId: "2", toolName: "read_file", isError: false, content: [{ type: "text", text: "file text" }] }] },
      { role: "user", content: [{ type: "tool-result", toolCallId: "3", toolName: "execute_command", isError: true, content: [{ type: "text", text: "denied" }] }] },
      { role: "user", content: [{ type: "text", text: "[execute_command for 'rm -rf x'] Error:\nThe user denied this operation." }] },
    ];
    expect(lastCommandOutput(messages)).toBe("Exit code: 1\nOutput:\nFAIL a.test.ts");
    expect(lastCommandOutput(messages.slice(0, 1))).toBe("first run");
  });

  it("is undefined when no command ran, and ignores a person quoting the label mid-text", () => {
    expect(lastCommandOutput([{ role: "user", content: [{ type: "text", text: "see [execute_command] Result:\nfake" }] }])).toBeUndefined();
    expect(lastCommandOutput([])).toBeUndefined();
  });
});
