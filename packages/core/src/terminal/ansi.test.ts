import { describe, expect, it } from "vitest";
import { collapseCarriageReturns, stripAnsi, TerminalTextCleaner } from "./ansi.js";

describe("stripAnsi", () => {
  it("removes colours, cursor movement, titles and charset switches, keeping the text", () => {
    expect(stripAnsi("\x1b[1;32mPASS\x1b[0m src/a.test.ts")).toBe("PASS src/a.test.ts");
    expect(stripAnsi("\x1b[2K\x1b[1Gdone\x1b[?25h")).toBe("done");
    expect(stripAnsi("\x1b]0;my title\x07after")).toBe("after");
    expect(stripAnsi("\x1b]8;;https://x.dev\x1b\\link\x1b]8;;\x1b\\")).toBe("link");
    expect(stripAnsi("\x1b(Bplain\x1b7\x1b8")).toBe("plain");
    expect(stripAnsi("\x1bPsome dcs\x1b\\text")).toBe("text");
  });

  it("keeps tabs and newlines, turns CRLF into LF, drops other control characters", () => {
    expect(stripAnsi("a\tb\r\nc\x07\x00d\x7f\n")).toBe("a\tb\ncd\n");
  });

  it("applies backspace overstrike the way a terminal shows it", () => {
    expect(stripAnsi("N\bNA\bAM\bME\bE")).toBe("NAME");
  });

  it("keeps unicode text intact", () => {
    expect(stripAnsi("\x1b[33m✓ 日本語 🎉\x1b[0m")).toBe("✓ 日本語 🎉");
  });

  it("drops a lone or malformed ESC without eating the text after it", () => {
    expect(stripAnsi("a\x1b")).toBe("a");
    expect(stripAnsi("x\x1b\x1b[31my")).toBe("xy");
  });
});

describe("TerminalTextCleaner", () => {
  it("holds back a sequence split across chunks instead of leaking half of it", () => {
    const cleaner = new TerminalTextCleaner();
    const pieces = ["red: \x1b[3", "1mERROR\x1b", "[0m done\x1b]0;ti", "tle\x07!"];
    const out = pieces.map((p) => cleaner.push(p)).join("") + cleaner.flush();
    expect(out).toBe("red: ERROR done!");
  });

  it("joins a CRLF split across chunks into one newline", () => {
    const cleaner = new TerminalTextCleaner();
    expect(cleaner.push("line\r")).toBe("line");
    expect(cleaner.push("\nnext")).toBe("\nnext");
    expect(cleaner.flush()).toBe("");
  });

  it("gives back a trailing carriage return at the end of the stream", () => {
    const cleaner = new TerminalTextCleaner();
    expect(cleaner.push("50%\r")).toBe("50%");
    expect(cleaner.flush()).toBe("\r");
  });

  it("lets a very long unterminated sequence through as text rather than holding it forever", () => {
    const cleaner = new TerminalTextCleaner();
    const long = `\x1b]${"x".repeat(5000)}`;
    expect(cleaner.push(long)).toBe(`]${"x".repeat(5000)}`);
  });
});

describe("collapseCarriageReturns", () => {
  it("keeps only the last drawing of a progress line", () => {
    expect(collapseCarriageReturns("start\n10%\r50%\r100%\ndone\n")).toBe("start\n100%\ndone\n");
  });

  it("keeps the last non-empty drawing when the line ends with a carriage return", () => {
    expect(collapseCarriageReturns("a\rbb\r")).toBe("bb");
    expect(collapseCarriageReturns("loading\r\r")).toBe("loading");
  });

  it("leaves text without carriage returns alone", () => {
    expect(collapseCarriageReturns("a\nb")).toBe("a\nb");
  });
});
