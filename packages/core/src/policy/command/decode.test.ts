import { describe, expect, it } from "vitest";
import { decodeAnsiC, decodeDoubleQuoted, decodeUnquoted, unescapeBackquoted } from "./decode.js";

describe("quote removal", () => {
  it("removes backslashes from unquoted text and turns patterns into holes", () => {
    expect(decodeUnquoted("r\\m")).toEqual([{ kind: "lit", text: "rm" }]);
    expect(decodeUnquoted("a\\;b")).toEqual([{ kind: "lit", text: "a;b" }]);
    expect(decodeUnquoted("*.ts")).toEqual([{ kind: "any", source: "*" }, { kind: "lit", text: ".ts" }]);
    expect(decodeUnquoted("-l?")).toEqual([{ kind: "lit", text: "-l" }, { kind: "one", source: "?" }]);
    expect(decodeUnquoted("[ab]c")).toEqual([{ kind: "one", source: "[ab]" }, { kind: "lit", text: "c" }]);
    expect(decodeUnquoted("[]x]")).toEqual([{ kind: "one", source: "[]x]" }]);
    expect(decodeUnquoted("a[b")).toEqual([{ kind: "lit", text: "a[b" }]);
    expect(decodeUnquoted("\\*")).toEqual([{ kind: "lit", text: "*" }]);
  });

  it("keeps backslashes in double quotes except before $ ` \" \\ and newline", () => {
    expect(decodeDoubleQuoted("a\\$b\\`c\\\"d\\\\e")).toBe('a$b`c"d\\e');
    expect(decodeDoubleQuoted("a\\nb")).toBe("a\\nb");
    expect(decodeDoubleQuoted("r\\\nm")).toBe("rm");
  });

  it("decodes $'…' escapes as bash does", () => {
    expect(decodeAnsiC("\\x72m")).toBe("rm");
    expect(decodeAnsiC("\\162m")).toBe("rm");
    expect(decodeAnsiC("\\u0072\\U0000006d")).toBe("rm");
    expect(decodeAnsiC("a\\nb\\tc\\\\d\\'e")).toBe("a\nb\tc\\d'e");
    expect(decodeAnsiC("\\cA")).toBe("\x01");
    expect(decodeAnsiC("\\q")).toBe("\\q");
    expect(decodeAnsiC("rm\\x00 -rf")).toBe("rm"); // bash ends the string at NUL
  });

  it("unescapes backquoted text before it is parsed again", () => {
    expect(unescapeBackquoted("echo \\`rm\\` \\$x \\\\ \\n")).toBe("echo `rm` $x \\ \\n");
  });
});
