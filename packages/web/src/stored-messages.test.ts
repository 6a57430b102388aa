import type { AgentEvent, Message } from "@cairn/core";
import { describe, expect, it } from "vitest";
import { personMessages, withPersonMessages } from "./stored-messages.js";

const picture = { type: "image" as const, mediaType: "image/png", data: "iVBORw0KGgo=" };
const user = (text: string, images = 0): Message => ({ role: "user", content: [{ type: "text", text }, ...Array.from({ length: images }, () => picture)] });
const results: Message = { role: "user", content: [{ type: "tool-result", toolCallId: "c1", toolName: "read_file", isError: false, content: [{ type: "text", text: "x" }] }, { type: "text", text: "[Environment: now · ACT mode]" }] };
const reply: Message = { role: "assistant", content: [{ type: "text", text: "ok" }] };
const init = { type: "system", subtype: "init" } as AgentEvent;
const turn = { type: "turn_start", turn: 1, reason: "start" } as AgentEvent;
const result = { type: "result", subtype: "success" } as AgentEvent;

describe("the person's messages of a stored task", () => {
  it("are the user messages the loop did not write, without what Cairn added, with their picture counts", () => {
    const messages = [
      user("Look at these\n\n<environment_details>\nFiles: a.png\n</environment_details>", 2),
      reply,
      user("[ERROR] You did not use a tool in your previous reply."),
      reply,
      results,
      user("[The task was stopped by the user and has now been resumed.]\n\nAnd this one?", 1),
      user("Thanks"),
    ];
    expect(personMessages(messages)).toEqual([
      { type: "web_user_message", text: "Look at these", images: 2 },
      { type: "web_user_message", text: "And this one?", images: 1 },
      { type: "web_user_message", text: "Thanks" },
    ]);
  });

  it("go before the start of the run they began; a run refused at its opening gets none", () => {
    const events = [init, turn, result, init, result, init, turn, result];
    const shown = withPersonMessages(events, [user("first", 2), reply, results, user("second")]);
    expect(shown.map((e) => (e.type === "web_user_message" ? `said ${e.text} ${e.images ?? 0}` : e.type))).toEqual([
      "said first 2", "system", "turn_start", "result",
      "system", "result",
      "said second 0", "system", "turn_start", "result",
    ]);
  });

  it("after the conversation was rewritten, the opening message stays with the first run and the latest pair from the end", () => {
    // Three runs, but a compaction dropped the second run's message.
    const events = [init, turn, result, init, turn, result, init, turn, result];
    const shown = withPersonMessages(events, [user("task", 1), reply, results, user("third", 3)]);
    const said = shown.flatMap((e, i) => (e.type === "web_user_message" ? [[i, e.text, e.images]] : []));
    expect(said).toEqual([[0, "task", 1], [7, "third", 3]]);
    expect(withPersonMessages(events, [])).toEqual(events);
  });
});
