import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CommandOutputFeed } from "./command-output-feed.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function feed(options: { maxLines?: number; maxLineChars?: number } = {}) {
  const writes: string[][] = [];
  const output = new CommandOutputFeed((lines) => writes.push(lines), { intervalMs: 200, now: () => Date.now(), ...options });
  return { output, writes };
}

describe("command output as it comes", () => {
  it("writes the first line at once, then at most one batch per interval", () => {
    const { output, writes } = feed();
    output.push("c", "one\n");
    expect(writes).toEqual([["  │ one"]]);
    output.push("c", "two\n");
    output.push("c", "thr");
    output.push("c", "ee\n");
    expect(writes).toHaveLength(1);
    vi.advanceTimersByTime(199);
    expect(writes).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual([["  │ one"], ["  │ two", "  │ three"]]);
  });

  it("writes what is left, a last line without its newline too, when the command ends", () => {
    const { output, writes } = feed();
    output.push("c", "one\n");
    output.push("c", "two\nno newline");
    output.end("c");
    expect(writes).toEqual([["  │ one"], ["  │ two", "  │ no newline"]]);
    vi.advanceTimersByTime(1000);
    expect(writes).toHaveLength(2);
  });

  it("cleans colour codes and progress redraws, and cuts long lines", () => {
    const { output, writes } = feed({ maxLineChars: 10 });
    output.push("c", "\u001b[32mgreen\u001b[0m\n");
    output.end("c");
    output.push("d", "10%\r50%\r100%\r\n");
    output.end("d");
    output.push("e", `${"x".repeat(50)}\n`);
    output.end("e");
    expect(writes.flat()).toEqual(["  │ green", "  │ 100%", `  │ ${"x".repeat(9)}…`]);
  });

  it("keeps the last lines of a flood and says how many it left out", () => {
    const { output, writes } = feed({ maxLines: 3 });
    output.push("c", "first\n");
    output.push("c", Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    vi.advanceTimersByTime(200);
    expect(writes).toEqual([["  │ first"], ["  │ … 997 lines not shown", "  │ line 998", "  │ line 999", "  │ line 1000"]]);
  });
});
