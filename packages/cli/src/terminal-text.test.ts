import { describe, expect, it } from "vitest";
import { TerminalStream, terminalSafe, terminalText } from "./terminal-text.js";

/** Every code point that may act on a terminal: C0 but \n and \t, DEL, C1, bidi overrides and isolates. */
const acting = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("terminalText", () => {
  it.each([
    ["an OSC 52 clipboard write ended by BEL", "copy \u001b]52;c;ZWNobyBwd25lZA==\u0007done", "copy done"],
    ["an OSC 52 ended by ST", "a\u001b]52;c;ZWNobw==\u001b\\b", "ab"],
    ["a title set left open to the end of its line", "x\u001b]0;owned title\nnext line", "x\nnext line"],
    ["a screen clear and cursor home", "\u001b[2J\u001b[Hhello", "hello"],
    ["colours", "\u001b[1;31mred\u001b[0m text", "red text"],
    ["a DCS string", "a\u001bP1$qm\u001b\\b", "ab"],
    ["8-bit CSI and OSC", "a\u009b2Jb\u009d52;c;eA==\u0007c", "abc"],
    ["a terminal reset and a lone ESC", "a\u001bcb\u001b", "ab"],
    ["carriage returns and backspaces that hide what was said", "rm -rf /\rls\u0008\u0008 ok", "rm -rf /ls ok"],
    ["bidi overrides that reverse a file name", "invoice\u202Efdp.exe", "invoicefdp.exe"],
  ])("removes %s", (_what, input, output) => {
    expect(terminalText(input)).toBe(output);
    expect(terminalText(input)).not.toMatch(acting);
  });

  it("keeps newlines, tabs, unicode and emoji as they are, and turns CRLF into LF", () => {
    expect(terminalText("line 1\r\n\tindented — ünïcødé 🚀\nend")).toBe("line 1\n\tindented — ünïcødé 🚀\nend");
    const plain = "nothing to clean here\n";
    expect(terminalText(plain)).toBe(plain);
  });

  it("leaves no acting byte in any mix, even split mid-sequence as a stream delivers it", () => {
    const hostile = "ok \u001b]52;c;SGVsbG8=\u0007 \u001b[2J\u001b[3J \u009b31m \u001bP+q\u001b\\ \u0007\u0000\u007f\u0085\u202e end";
    for (let cut = 0; cut <= hostile.length; cut++) {
      const printed = terminalText(hostile.slice(0, cut)) + terminalText(hostile.slice(cut));
      expect(printed).not.toMatch(acting);
      expect(printed).toContain("end");
    }
  });
});

describe("terminalSafe", () => {
  it("cleans every string of a nested value, keeps the rest, and leaves the original alone", () => {
    const resolve = () => undefined;
    const original = { kind: "approval", resolve, n: 3, ok: true, none: null, request: { summary: "$ echo \u001b[2Jhi", lines: ["a\u001b]52;c;eA==\u0007", "b"], when: new Date(0) } };
    const safe = terminalSafe(original);
    expect(safe).toEqual({ kind: "approval", resolve, n: 3, ok: true, none: null, request: { summary: "$ echo hi", lines: ["a", "b"], when: new Date(0) } });
    expect(safe.resolve).toBe(resolve);
    expect(Array.isArray(safe.request.lines)).toBe(true);
    expect(original.request.summary).toBe("$ echo \u001b[2Jhi");
  });

  it("walks a value nested far deeper than any stack would allow", () => {
    let deep: unknown = "\u001b[2Jbottom";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let found = terminalSafe(deep);
    for (let i = 0; i < 100_000; i++) found = (found as unknown[])[0];
    expect(found).toBe("bottom");
  });
});

describe("TerminalStream", () => {
  it("drops a sequence split across pieces whole, payload included, at every split point", () => {
    const text = "Looking \u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007at it\u001b[2J\u001b[H now.\u001b]0;t\u001b\\\n";
    for (let cut = 0; cut <= text.length; cut++) {
      for (let cut2 = cut; cut2 <= text.length; cut2 += 7) {
        const stream = new TerminalStream();
        const printed = [text.slice(0, cut), text.slice(cut, cut2), text.slice(cut2)].map((piece) => stream.push(piece)).join("");
        expect(printed).toBe("Looking at it now.\n");
      }
    }
  });

  it("does not wait forever for a sequence that never ends", () => {
    const stream = new TerminalStream();
    expect(stream.push("a\u001b]0;")).toBe("a");
    expect(stream.push("x".repeat(5000))).toBe("");
    expect(stream.push(" more")).toBe(" more");
  });
});
