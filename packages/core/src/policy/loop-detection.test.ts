import { describe, expect, it } from "vitest";
import { callSignature, checkForLoop, type CallRecord } from "./loop-detection.js";

const rec = (name: string, input: Record<string, unknown> = {}, error?: string): CallRecord => ({ name, signature: callSignature(name, input), ...(error ? { error } : {}) });
const times = (n: number, r: CallRecord) => Array.from({ length: n }, () => r);

describe("callSignature", () => {
  it("ignores key order and progress-only parameters", () => {
    expect(callSignature("read_file", { path: "a", end_line: 3 })).toBe(callSignature("read_file", { end_line: 3, path: "a", task_progress: "- [x] x" }));
    expect(callSignature("read_file", { path: "a" })).not.toBe(callSignature("read_file", { path: "b" }));
    expect(callSignature("t", { o: { b: 1, a: 2 } })).toBe(callSignature("t", { o: { a: 2, b: 1 } }));
  });
});

describe("checkForLoop", () => {
  const read = rec("read_file", { path: "a.ts" });
  it("warns at the 3rd identical consecutive call and stops at the 5th", () => {
    expect(checkForLoop(times(2, read)).level).toBe("ok");
    expect(checkForLoop(times(3, read))).toMatchObject({ level: "warn", pattern: "identical" });
    expect(checkForLoop(times(4, read)).level).toBe("warn");
    expect(checkForLoop(times(5, read))).toMatchObject({ level: "stop", pattern: "identical", reason: expect.stringContaining("5 times") });
  });

  it("does not count identical calls that are not consecutive", () => {
    const other = rec("list_files", { path: "." });
    expect(checkForLoop([read, read, other, read, read]).level).toBe("ok");
  });

  it("catches A-B-A-B alternation", () => {
    const a = rec("read_file", { path: "a.ts" });
    const b = rec("write_to_file", { path: "a.ts", content: "x" });
    expect(checkForLoop([a, b, a, b, a]).level).toBe("ok");
    expect(checkForLoop([a, b, a, b, a, b])).toMatchObject({ level: "warn", pattern: "alternation" });
    expect(checkForLoop([a, b, a, b, a, b, a, b, a, b])).toMatchObject({ level: "stop", pattern: "alternation" });
  });

  it("catches the same error coming back from different calls", () => {
    const failing = (path: string) => rec("read_file", { path }, "Permission denied reading x");
    expect(checkForLoop([failing("a"), failing("b")]).level).toBe("ok");
    expect(checkForLoop([failing("a"), failing("b"), failing("c")])).toMatchObject({ level: "warn", pattern: "same_error" });
    expect(checkForLoop([failing("a"), failing("b"), failing("c"), failing("d"), failing("e")])).toMatchObject({ level: "stop", pattern: "same_error" });
    expect(checkForLoop([failing("a"), failing("b"), rec("x"), failing("c")]).level).toBe("ok");
  });
});
