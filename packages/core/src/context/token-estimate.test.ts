import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { evaluationCorpus } from "../../../../test/support/token-corpus.js";
import { estimateTextTokens } from "./token-estimate.js";

/**
 * The estimate against exact o200k counts on real texts it was not calibrated on (see
 * test/support/token-corpus.ts and bench/calibrate-token-estimate.ts).
 */
const encoder = getEncoding("o200k_base");
const corpus = evaluationCorpus().map((t) => ({ ...t, exact: encoder.encode(t.text).length, estimate: estimateTextTokens(t.text) }));
const error = (t: { exact: number; estimate: number }) => (t.estimate - t.exact) / t.exact;
const describeErrors = (texts: typeof corpus) => texts.map((t) => `${t.kind} ${(error(t) * 100).toFixed(1)}% (${t.estimate} vs ${t.exact})`).join("\n");

// German and French words are fewer in the vocabulary than English ones, in ways the estimate's
// letter statistics see only in part: they are held to 15%.
const european = (kind: string) => /\((de|fr)\)/.test(kind);

describe("token estimate", () => {
  it("covers every kind of text a conversation carries", () => {
    const kinds = corpus.map((t) => t.kind).join(" ");
    for (const kind of ["code (TypeScript)", "code (python)", "code (C)", "prose (legal)", "JSON", "system prompt", "minified JavaScript", "(zh-cn)", "(ja)", "(ko)", "(ru)"]) {
      expect(kinds).toContain(kind);
    }
    for (const t of corpus) expect(t.exact, t.name).toBeGreaterThan(100);
  });

  it("is within 10% of the exact count on code, prose, JSON, the system prompt, minified code and CJK and Cyrillic text", () => {
    const judged = corpus.filter((t) => !european(t.kind));
    const off = judged.filter((t) => Math.abs(error(t)) > 0.1);
    expect(off, describeErrors(judged)).toEqual([]);
  });

  it("is within 15% on German and French prose", () => {
    const judged = corpus.filter((t) => european(t.kind));
    expect(judged.length).toBe(2);
    for (const t of judged) expect(Math.abs(error(t)), describeErrors(judged)).toBeLessThanOrEqual(0.15);
  });

  it("is within 5% over the whole corpus, as a conversation mixes them", () => {
    const exact = corpus.reduce((s, t) => s + t.exact, 0);
    const estimate = corpus.reduce((s, t) => s + t.estimate, 0);
    expect(Math.abs(estimate - exact) / exact).toBeLessThanOrEqual(0.05);
  });

  it("counts nothing as nothing, and small texts as a token or more", () => {
    expect(estimateTextTokens("")).toBe(0);
    expect(estimateTextTokens("a")).toBe(1);
    expect(estimateTextTokens("hello world")).toBe(encoder.encode("hello world").length);
  });

  it("prices a string of characters the vocabulary lacks above its letter count", () => {
    // Rare CJK characters cost several tokens each; common ones one or less.
    const rare = "\u4e28\u4e2c\u4e36\u4e3f\u4e44\u4e47";
    expect(estimateTextTokens(rare)).toBeGreaterThanOrEqual(encoder.encode(rare).length * 0.7);
  });
});
