import { describe, expect, it } from "vitest";
import { environmentKey, environmentLine } from "./environment.js";

const at = (iso: string, contextTokens = 3_000, mode: "act" | "plan" = "act") => ({ now: new Date(iso), mode, contextTokens, contextWindow: 200_000 });

describe("environmentKey", () => {
  it("stays the same within an hour, a mode and a tenth of the window, and changes with each", () => {
    const base = environmentKey(at("2026-11-28T14:05:00Z"));
    expect(environmentKey(at("2026-11-28T14:59:59Z", 19_000))).toBe(base);
    expect(environmentKey(at("2026-11-28T15:00:00Z"))).not.toBe(base);
    expect(environmentKey(at("2026-11-29T14:05:00Z"))).not.toBe(base);
    expect(environmentKey(at("2026-11-28T14:05:00Z", 3_000, "plan"))).not.toBe(base);
    expect(environmentKey(at("2026-11-28T14:05:00Z", 21_000))).not.toBe(base);
  });

  it("the line itself keeps the minute and the exact count", () => {
    expect(environmentLine(at("2026-11-28T14:05:00Z", 21_000))).toBe("[Environment: 2026-11-28 14:05 UTC · ACT mode · context 21,000 / 200,000 tokens (11%)]");
  });
});
