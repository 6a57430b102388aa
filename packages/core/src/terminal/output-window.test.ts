import { describe, expect, it } from "vitest";
import { OutputWindow, type WindowLimits } from "./output-window.js";

const small: WindowLimits = { headLines: 3, headChars: 1_000, tailLines: 4, tailChars: 1_000 };

function numbered(from: number, to: number): string {
  let text = "";
  for (let i = from; i <= to; i += 1) text += `line ${i}\n`;
  return text;
}

describe("OutputWindow", () => {
  it("keeps everything while it fits", () => {
    const window = new OutputWindow(small);
    window.append(numbered(1, 5));
    window.append("partial");
    expect(window.text()).toBe(`${numbered(1, 5)}partial`);
    expect(window.hasDropped).toBe(false);
  });

  it("keeps the first and last lines and counts what fell out between them, whatever the chunking", () => {
    const whole = new OutputWindow(small);
    whole.append(numbered(1, 20));
    const chunked = new OutputWindow(small);
    const text = numbered(1, 20);
    for (let i = 0; i < text.length; i += 7) chunked.append(text.slice(i, i + 7));

    for (const window of [whole, chunked]) {
      const parts = window.parts();
      expect(parts.head).toBe(numbered(1, 3));
      expect(parts.tail).toBe(numbered(17, 20));
      expect(parts.droppedLines).toBe(13);
      expect(parts.droppedChars).toBe(numbered(4, 16).length);
      expect(parts.totalChars).toBe(text.length);
    }
  });

  it("bounds characters too: a single enormous line keeps its start in the head and its end in the tail", () => {
    const window = new OutputWindow({ headLines: 100, headChars: 10, tailLines: 100, tailChars: 20 });
    const line = `${"a".repeat(10)}${"b".repeat(1_000_000)}${"c".repeat(20)}`;
    for (let i = 0; i < line.length; i += 4096) window.append(line.slice(i, i + 4096));
    const parts = window.parts();
    expect(parts.head).toBe("a".repeat(10));
    expect(parts.tail).toBe("c".repeat(20));
    expect(parts.droppedChars).toBe(1_000_000);
    expect(parts.droppedLines).toBe(0);
    expect(window.size).toEqual({ headChars: 10, tailChars: 20, tailLines: 1 });
  });

  it("stays within its limits however much passes through", () => {
    const limits = { headLines: 100, headChars: 10_000, tailLines: 400, tailChars: 30_000 };
    const window = new OutputWindow(limits);
    const chunk = "some line of output\n".repeat(3_000);
    let maxTail = 0;
    for (let i = 0; i < 150; i += 1) {
      window.append(chunk);
      maxTail = Math.max(maxTail, window.size.tailChars);
      expect(window.size.tailLines).toBeLessThanOrEqual(400);
    }
    expect(window.total).toBe(chunk.length * 150);
    expect(window.size.headChars).toBeLessThanOrEqual(10_000);
    expect(maxTail).toBeLessThanOrEqual(30_000);
  });

  it("calls beforeFirstDrop once, while text() still holds everything", () => {
    const seen: string[] = [];
    const window: OutputWindow = new OutputWindow(small, () => seen.push(window.text()));
    window.append(numbered(1, 6));
    expect(seen).toEqual([]);
    window.append(numbered(7, 9));
    window.append(numbered(10, 30));
    expect(seen).toEqual([numbered(1, 9)]);
  });

  it("reports the last line and whether it is unfinished", () => {
    const window = new OutputWindow(small);
    expect(window.lastLine()).toEqual({ line: "", partial: true });
    window.append("one\ntwo\n");
    expect(window.lastLine()).toEqual({ line: "two", partial: false });
    window.append(numbered(1, 10));
    window.append("Your name? ");
    expect(window.lastLine()).toEqual({ line: "Your name? ", partial: true });
    window.append("ann\n");
    expect(window.lastLine()).toEqual({ line: "Your name? ann", partial: false });
  });

  it("finds a last line that starts in the head and ends in the tail", () => {
    const window = new OutputWindow({ headLines: 10, headChars: 5, tailLines: 10, tailChars: 100 });
    window.append("Proceed? ");
    expect(window.lastLine()).toEqual({ line: "Proceed? ", partial: true });
  });
});
