import { describe, expect, it } from "vitest";
import { newJobId } from "./job-id.js";

describe("newJobId", () => {
  it("is never a plain integer, which BullMQ refuses as a custom id", () => {
    for (let i = 0; i < 5_000; i++) {
      const id = newJobId();
      expect(id).toMatch(/^[0-9a-f]{10}$/);
      expect(`${parseInt(id, 10)}`).not.toBe(id);
    }
  });
});
