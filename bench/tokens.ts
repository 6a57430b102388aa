/**
 * Token counting (issue 13): the estimate every turn uses against the exact o200k tokenizer that
 * is loaded only near the window.
 *
 * - Speed on the evaluation corpus (test/support/token-corpus.ts): estimate vs exact encoding
 *   with the tokenizer already loaded. Goal: ≥ 10× faster.
 * - The exact tokenizer's load, in a fresh process beside `node -e 0` (interleaved, median of 5):
 *   what a task pays once when its conversation nears the window, and no longer on every run.
 * - The estimate's error on the same corpus (the test holds each text to 10%, German and French
 *   prose to 15%).
 */
import { getEncoding } from "js-tiktoken";
import { estimateTextTokens } from "../packages/core/src/context/token-estimate.js";
import { evaluationCorpus } from "../test/support/token-corpus.js";
import type { BenchRow } from "./run.js";
import { interleaved, measured } from "./startup.js";

function timePerPass(pass: () => void): number {
  pass(); // warm up
  const runs: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    pass();
    runs.push(performance.now() - started);
  }
  return runs.sort((a, b) => a - b)[3]!;
}

export async function run(): Promise<BenchRow[]> {
  const corpus = evaluationCorpus();
  const chars = corpus.reduce((s, t) => s + t.text.length, 0);
  const encoder = getEncoding("o200k_base");
  const estimateMs = timePerPass(() => corpus.forEach((t) => estimateTextTokens(t.text)));
  const exactMs = timePerPass(() => corpus.forEach((t) => encoder.encode(t.text)));
  const mbps = (ms: number) => `${(chars / 1e6 / (ms / 1000)).toFixed(1)} MB/s`;
  const speedup = exactMs / estimateMs;

  const load = await interleaved(
    {
      floor: () => measured([process.execPath, "-e", "0"]),
      tokenizer: () =>
        measured([
          process.execPath,
          "--input-type=module",
          "-e",
          'const [{ Tiktoken }, ranks] = await Promise.all([import("js-tiktoken/lite"), import("js-tiktoken/ranks/o200k_base")]); new Tiktoken(ranks.default).encode("hi");',
        ]),
    },
    5,
  );
  const errors = corpus.map((t) => {
    const exact = encoder.encode(t.text).length;
    return { kind: t.kind, error: (estimateTextTokens(t.text) - exact) / exact, exact };
  });
  const worst = errors.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a));
  const exactTotal = errors.reduce((s, e) => s + e.exact, 0);
  const estimateTotal = corpus.reduce((s, t) => s + estimateTextTokens(t.text), 0);
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  const f = load.floor!;
  const t = load.tokenizer!;
  return [
    {
      bench: "tokens",
      case: `count ${corpus.length} real texts (${(chars / 1e6).toFixed(2)} MB: code, prose, JSON, prompts, CJK...)`,
      measure: `estimate: ${estimateMs.toFixed(1)} ms (${mbps(estimateMs)})`,
      baseline: `exact o200k, loaded: ${exactMs.toFixed(0)} ms (${mbps(exactMs)})`,
      ratio: `${speedup.toFixed(0)}× faster`,
      goal: "≥ 10× faster",
      pass: speedup >= 10,
    },
    {
      bench: "tokens",
      case: "loading the exact tokenizer (fresh process, median of 5): now only near the window",
      measure: `${Math.round(t.cpuMs - f.cpuMs)} ms CPU, ${Math.round(t.rssMb - f.rssMb)} MB above node -e 0`,
      baseline: `node -e 0: ${Math.round(f.cpuMs)} ms CPU, ${Math.round(f.rssMb)} MB`,
    },
    {
      bench: "tokens",
      case: "estimate's error against exact counts, same texts",
      measure: `whole corpus ${pct((estimateTotal - exactTotal) / exactTotal)}; worst text ${pct(worst.error)} (${worst.kind})`,
      goal: "each text ≤ 10% (German, French prose ≤ 15%)",
      pass: errors.every((e) => Math.abs(e.error) <= (/\((de|fr)\)/.test(e.kind) ? 0.15 : 0.1)),
    },
  ];
}
