import { describe, expect, it } from "vitest";
import { isJobId, newJobId } from "./job-id.js";

describe("newJobId", () => {
  it("is never a plain integer, which BullMQ refuses as a custom id", () => {
    for (let i = 0; i < 5_000; i++) {
      const id = newJobId();
      expect(id).toMatch(/^[0-9a-f]{10}$/);
      expect(`${parseInt(id, 10)}`).not.toBe(id);
      expect(isJobId(id)).toBe(true);
    }
  });
});

describe("isJobId", () => {
  it("refuses every id newJobId would not make: paths, branch tricks, other lengths, integers", () => {
    for (const id of ["../../../outside/victim", "a/../b12345", "abcdef0123/", "ABCDEF0123", "abcdef012", "abcdef01234", "0123456789", "abc def012", "abcdef012\n", "-abcdef012", "", 12, undefined, null]) {
      expect(isJobId(id), String(id)).toBe(false);
    }
  });
});
