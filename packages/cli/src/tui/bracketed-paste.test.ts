import { describe, expect, it } from "vitest";
import { InputSorter, type KeyEvent } from "./bracketed-paste.js";

const start = "\u001b[200~";
const end = "\u001b[201~";

/** What each event is, in short: "text:…", "paste:…", "enter". */
function kinds(events: KeyEvent[] | undefined): string[] | undefined {
  return events?.map((e) => (e.key.return ? "enter" : `${e.key.paste ? "paste" : "text"}:${e.input}`));
}

describe("InputSorter", () => {
  it("reads text and Enter that came in one burst as typing: the text, then Enter", () => {
    const sorter = new InputSorter();
    expect(kinds(sorter.take("fix the bug\r"))).toEqual(["text:fix the bug", "enter"]);
    expect(kinds(sorter.take("one\rtwo\r"))).toEqual(["text:one", "enter", "text:two", "enter"]);
  });

  it("leaves single keys and escape sequences to ink", () => {
    const sorter = new InputSorter();
    expect(sorter.take("a")).toBeUndefined();
    expect(sorter.take("\r")).toBeUndefined();
    expect(sorter.take("abc")).toBeUndefined();
    expect(sorter.take("\u001b[A")).toBeUndefined();
    expect(sorter.take("\u001b\r")).toBeUndefined();
  });

  it("reads two Escapes that came in one read as two presses (ink alone would read one), and one as ink's", () => {
    const sorter = new InputSorter();
    expect(sorter.take("\u001b")).toBeUndefined();
    expect(sorter.take("\u001b\u001b")?.map((e) => e.key.escape)).toEqual([true, true]);
  });

  it("gathers a paste between its markers, newlines and all, even across reads", () => {
    const sorter = new InputSorter();
    expect(sorter.take(start)).toEqual([]);
    expect(sorter.pasting).toBe(true);
    expect(sorter.take("line one\rline")).toEqual([]);
    expect(sorter.take(" two\r")).toEqual([]);
    expect(kinds(sorter.take(end))).toEqual(["paste:line one\rline two\r"]);
    expect(sorter.pasting).toBe(false);
    // Typing after the paste is typing again.
    expect(kinds(sorter.take("go\r"))).toEqual(["text:go", "enter"]);
  });

  it("keeps escape sequences inside a paste as pasted text, not keys", () => {
    const sorter = new InputSorter();
    sorter.take(start);
    expect(sorter.take("\u001b[A")).toEqual([]);
    expect(kinds(sorter.take(end))).toEqual(["paste:\u001b[A"]);
  });

  it("reads markers that arrive joined to the text around them", () => {
    const sorter = new InputSorter();
    expect(kinds(sorter.take(`${start}a\rb${end}`))).toEqual(["paste:a\rb"]);
    expect(kinds(sorter.take(`${start}x${end}y\r`))).toEqual(["paste:x", "text:y", "enter"]);
    expect(sorter.take(`${start}${end}`)).toEqual([]);
  });
});
