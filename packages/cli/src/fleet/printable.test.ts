import { describe, expect, it } from "vitest";
import { printable, printableJson, printableLine } from "./printable.js";

const hostile = "ok\x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2Jcleared \x1b[31mred\x1b[0m \x9b2J c1 \x1bc lone\x1b esc\rover \u202ereversed\u202c\tend\nnext";

describe("printable", () => {
  it("drops escape sequences (OSC 52, CSI, C1, lone ESC), carriage returns and bidi overrides; keeps tabs and newlines", () => {
    const out = printable(hostile);
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
    expect(out).toContain("ok ");
    expect(out).toContain("cleared red");
    expect(out).toContain("\tend\nnext");
    expect(out).toContain("over reversed");
    expect(out).not.toContain("cm0gLXJmIH4=");
  });

  it("printableLine makes one line; printableJson escapes what JSON.stringify leaves raw and parses back to the same value", () => {
    expect(printableLine("a\nb\tc\x1b[2J")).toBe("a b c");
    const value = { text: hostile };
    const json = printableJson(value);
    expect(json).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});
