/**
 * The xml protocol's stream parser: incremental parsing vs re-parsing the whole accumulated message
 * on every chunk (what Cline does), on generated assistant messages streamed in 1–10 char chunks.
 */
import { XmlStreamParser, type XmlParseEvent, type XmlToolSpec } from "../packages/core/src/protocol/xml/stream-parser.js";
import type { BenchRow } from "./run.js";
import { median } from "./stats.js";
import { rng } from "./rng.js";

const TOOLS: XmlToolSpec[] = [
  { name: "read_file", params: ["path", "start_line", "end_line"] },
  { name: "write_to_file", params: ["path", "content"], rawParams: ["content"] },
  { name: "replace_in_file", params: ["path", "diff"], rawParams: ["diff"] },
  { name: "execute_command", params: ["command", "requires_approval"] },
  { name: "list_files", params: ["path", "recursive"] },
  { name: "attempt_completion", params: ["result", "command"] },
];

const SIZES_KB = [50, 200, 800];
const GOAL_KB = 200;
const GOAL_RATIO = 200;
/** Above this estimated cost the quadratic baseline is sampled instead of run over every chunk. */
const EXACT_BUDGET_MS = 20_000;
const SAMPLES = 240;

const WORDS =
  "the parser reads each chunk once and keeps its state so a long file streams without being read again while the model writes it to disk then runs tests".split(
    " ",
  );

/** A deterministic assistant message of mixed prose and tool blocks, at least `size` characters long. */
export function generateMessage(size: number, seed = 1): string {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const int = (n: number): number => Math.floor(random() * n);
  const sentence = (): string => {
    const words = Array.from({ length: 6 + int(9) }, () => pick(WORDS));
    if (random() < 0.2) words.push("`<read_file>`");
    if (random() < 0.3) words.push(`\`src/${pick(WORDS)}.ts\``);
    const text = words.join(" ");
    return `${text[0]?.toUpperCase() ?? ""}${text.slice(1)}.`;
  };
  const codeLine = (): string => {
    const indent = "  ".repeat(int(4));
    if (random() < 0.05) return `${indent}const tag = "</content>"; // not the end`;
    if (random() < 0.05) return `${indent}if (a < b && c > d) return "<path>";`;
    return `${indent}const ${pick(WORDS)}${int(100)} = ${pick(WORDS)}(${int(1000)}, "${pick(WORDS)}");`;
  };
  const lines = (n: number): string => Array.from({ length: n }, codeLine).join("\n");
  const path = (): string => `src/${pick(WORDS)}/${pick(WORDS)}.ts`;

  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const kind = random();
    let part: string;
    if (kind < 0.3) part = `${Array.from({ length: 2 + int(4) }, sentence).join(" ")}\n\n`;
    else if (kind < 0.4) part = `<read_file>\n<path>${path()}</path>\n</read_file>\n\n`;
    else if (kind < 0.6) part = `<write_to_file>\n<path>${path()}</path>\n<content>\n${lines(20 + int(100))}\n</content>\n</write_to_file>\n\n`;
    else if (kind < 0.75) {
      const block = (): string => `------- SEARCH\n${lines(1 + int(6))}\n=======\n${lines(1 + int(6))}\n+++++++ REPLACE`;
      part = `<replace_in_file>\n<path>${path()}</path>\n<diff>\n${Array.from({ length: 1 + int(3) }, block).join("\n")}\n</diff>\n</replace_in_file>\n\n`;
    } else if (kind < 0.85) part = `<execute_command>\n<command>npm test -- ${pick(WORDS)}</command>\n<requires_approval>false</requires_approval>\n</execute_command>\n\n`;
    else part = `For example:\n\`\`\`ts\n${lines(3 + int(12))}\n\`\`\`\n\n`;
    parts.push(part);
    length += part.length;
  }
  return parts.join("");
}

/** Chunk boundaries: the end offset of every chunk, sizes 1–10 from a seeded RNG. */
function chunkEnds(length: number, seed: number): number[] {
  const random = rng(seed);
  const ends: number[] = [];
  for (let at = 0; at < length; ) {
    at = Math.min(length, at + 1 + Math.floor(random() * 10));
    ends.push(at);
  }
  return ends;
}

function incremental(message: string, ends: readonly number[]): XmlParseEvent[] {
  const parser = new XmlStreamParser(TOOLS);
  const events: XmlParseEvent[] = [];
  let from = 0;
  for (const end of ends) {
    for (const e of parser.push(message.slice(from, end))) events.push(e);
    from = end;
  }
  for (const e of parser.end()) events.push(e);
  return events;
}

/** The timed run: events are handled as they come, as the agent loop does, not all kept (which would time the GC). */
function stream(message: string, ends: readonly number[]): number {
  const parser = new XmlStreamParser(TOOLS);
  let calls = 0;
  let from = 0;
  for (const end of ends) {
    for (const e of parser.push(message.slice(from, end))) if (e.type === "tool-end") calls++;
    from = end;
  }
  for (const e of parser.end()) if (e.type === "tool-end") calls++;
  return calls;
}

function reparse(prefix: string): number {
  return new XmlStreamParser(TOOLS).push(prefix).length;
}

function time(fn: () => unknown): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

/** What a consumer keeps: all text, and every call with its final params. */
function outcome(events: readonly XmlParseEvent[]): string {
  const text = events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("");
  const calls = events.filter((e) => e.type === "tool-end");
  return JSON.stringify({ text, calls });
}

type Baseline = { ms: number; sampled: boolean };

/** Re-parse the accumulated message on every chunk; sampled (midpoint rule over chunk indices) when too slow to run. */
function baseline(message: string, ends: readonly number[]): Baseline {
  reparse(message); // warm
  const estimate = (ends.length * median([1, 2, 3].map(() => time(() => reparse(message))))) / 2;
  if (estimate <= EXACT_BUDGET_MS) {
    return { ms: time(() => ends.forEach((end) => reparse(message.slice(0, end)))), sampled: false };
  }
  let total = 0;
  const stride = ends.length / SAMPLES;
  for (let s = 0; s < SAMPLES; s++) {
    const end = ends[Math.floor((s + 0.5) * stride)] ?? message.length;
    total += time(() => reparse(message.slice(0, end))) * stride;
  }
  return { ms: total, sampled: true };
}

const fmtMs = (ms: number): string => (ms >= 100 ? Math.round(ms).toLocaleString("en-US") : ms.toFixed(1));

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const nsPerChar: number[] = [];
  // Let the JIT settle first, so ns/char compares sizes rather than warm-up.
  const warmup = generateMessage(100 * 1024, 0);
  const warmupEnds = chunkEnds(warmup.length, 0);
  for (let k = 0; k < 10; k++) stream(warmup, warmupEnds);
  for (const kb of SIZES_KB) {
    const message = generateMessage(kb * 1024, kb);
    const ends = chunkEnds(message.length, kb + 7);
    const single = incremental(message, [message.length]);
    if (outcome(incremental(message, ends)) !== outcome(single)) {
      throw new Error(`bench parser: chunked parsing of the ${kb} KB message differs from one push; run the parser's tests.`);
    }
    const calls = single.filter((e) => e.type === "tool-end").length;
    const ms = median(Array.from({ length: 5 }, () => time(() => stream(message, ends))));
    console.error(`  ${kb} KB: incremental ${fmtMs(ms)} ms, re-parsing per chunk...`);
    const base = baseline(message, ends);
    const ratio = base.ms / ms;
    const ns = (ms * 1e6) / message.length;
    nsPerChar.push(ns);
    rows.push({
      bench: "parser",
      case: `xml message ${kb} KB (${calls} calls), ${ends.length.toLocaleString("en-US")} chunks of 1–10 chars`,
      measure: `incremental ${fmtMs(ms)} ms (${ns.toFixed(0)} ns/char)`,
      baseline: `re-parse per chunk ${fmtMs(base.ms)} ms${base.sampled ? ` (sampled, ${SAMPLES} prefixes)` : ""}`,
      ratio: `${Math.round(ratio).toLocaleString("en-US")}×`,
      ...(kb === GOAL_KB ? { goal: `≥ ${GOAL_RATIO}×`, pass: ratio >= GOAL_RATIO } : {}),
    });
  }
  const growth = (nsPerChar[nsPerChar.length - 1] ?? Number.NaN) / (nsPerChar[0] ?? Number.NaN);
  rows.push({
    bench: "parser",
    case: `linear growth: ns/char at ${SIZES_KB[SIZES_KB.length - 1]} KB ÷ at ${SIZES_KB[0]} KB`,
    measure: `${growth.toFixed(2)}×`,
    goal: "≤ 2× (linear)",
    pass: growth <= 2,
  });
  return rows;
}
