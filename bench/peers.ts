/**
 * Cairn beside its peers (issue 26), each the real command headless against the same scripted
 * model, on the same tasks, interleaved round by round; the ratio is peer / Cairn per round, its
 * median shown. The peers are their own packages from npm, pinned, installed at bench time into a
 * cache outside the repository (bench/peers/install.ts); one that does not install or run gets a
 * row saying why, and the rest goes on.
 *
 * - Five-reply task (read, edit, `echo ok`, read, finish): CPU with children (GNU time). Goal:
 *   Claude Code's ≥ 1.25× Cairn's.
 * - One-turn task (the model finishes at once): CPU with children. Goal: Cairn ≤ 250 ms. Beside it,
 *   Cairn's first run in a fresh home (no code cache yet; src/code-cache.ts in packages/cli).
 * - The CPU a long final answer adds to the one-turn task: 40,000 characters, sent at once in 2,000
 *   deltas, each agent's own way to finish (Cairn's attempt_completion, the others' text). Measured,
 *   no goal yet: what each streamed delta costs.
 * - The gap from the reply that runs the task's first command (its third reply) to the next
 *   request. Goal: Cairn ≤ 100 ms.
 * - The same gap when the command is the task's very first reply (`echo ok`, then finish), sent at
 *   once: whatever the first command needs loads inside it. Goal: Cairn ≤ 100 ms and the lowest.
 *   Beside it the same with `echo "ok" 2>&1` (quotes and a redirect, which Cairn's command policy
 *   reads without its shell parser too), same goal, and with `for w in ok; do echo "$w"; done` (a
 *   loop and an expansion: Cairn's policy loads its parser, tree-sitter-bash, then). Goal for that
 *   one: Cairn ≤ 100 ms, not the lowest. The parser loads with the first command that needs it,
 *   so a task that never runs one never pays for it; inside this gap the load (~30 ms of the main
 *   thread) shares the machine's cores with what every first command needs (the sandbox's network
 *   namespace and the workspace's first checkpoint), which peers without a sandbox or checkpoints
 *   do not make. At a real model's pace the load happens while the call streams (`replies` bench).
 * - The growth of the main loop's request per reply in the five-reply task. Goal: Cairn ≤ 300 B and
 *   the lowest.
 *
 * Each agent keeps one home from round to round, as a person's is used day after day; the first,
 * unmeasured round is its first run there. The workspace is fresh every task.
 *
 * Only the main loop's requests follow the script and count for the gap and the growth; a peer's side
 * requests (a title, a quota check) are answered with text.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Agent, Step } from "./peers/agent.js";
import { cairn } from "./peers/cairn.js";
import { CLAUDE_CODE, claudeCode } from "./peers/claude-code.js";
import { CLINE, cline } from "./peers/cline.js";
import { installPeer } from "./peers/install.js";
import { OPENCODE, opencode } from "./peers/opencode.js";
import { runTask, type Arrival, type TaskRun } from "./peers/task.js";
import type { BenchRow } from "./run.js";
import { median } from "./stats.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** CAIRN_BENCH_BIN: another build's bin/cairn.js, to measure it the same way. */
const cairnBin = process.env.CAIRN_BENCH_BIN ?? path.join(ROOT, "packages/cli/bin/cairn.js");
const ROUNDS = Number(process.env.CAIRN_BENCH_PEERS_ROUNDS ?? 7);
const GOAL_CC_RATIO = 1.25;
const GOAL_ONE_TURN_MS = 250;
const GOAL_GAP_MS = 100;
const GOAL_GROWTH_BYTES = 300;

const FIVE_REPLIES: Step[] = [
  { kind: "read", file: "file1.ts" },
  { kind: "edit", file: "file1.ts", old: "export const value1 = 1;", new: "export const value1 = 2;" },
  { kind: "command", command: "echo ok" },
  { kind: "read", file: "file2.ts" },
  { kind: "finish", text: "Done." },
];
const FIVE_PROMPT = "Read file1.ts, change its value to 2, run echo ok, read file2.ts, then finish.";
const ONE_TURN: Step[] = [{ kind: "finish", text: "Done." }];
const ONE_PROMPT = "Say you are done.";
/** A final answer of 40,000 characters, streamed at once in 2,000 deltas (the scripted server's 20 characters each). */
const LONG_ANSWER_CHARS = 40_000;
const LONG_ANSWER: Step[] = [{ kind: "finish", text: "All work is done; here is the summary. ".repeat(1_100).slice(0, LONG_ANSWER_CHARS) }];
const OPENING: Step[] = [
  { kind: "command", command: "echo ok" },
  { kind: "finish", text: "Done." },
];
const OPENING_PROMPT = "Run echo ok, then finish.";
const QUOTED_COMMAND = 'echo "ok" 2>&1';
const PARSED_COMMAND = 'for w in ok; do echo "$w"; done';
const openingWith = (command: string): Step[] => [
  { kind: "command", command },
  { kind: "finish", text: "Done." },
];
const COMMAND_AT = FIVE_REPLIES.findIndex((s) => s.kind === "command");
/** That the task did its work: the edit landed, and the request after the command carries its output. */
function didWork(ws: string, arrivals: readonly Arrival[]): string | undefined {
  if (!readFileSync(path.join(ws, "file1.ts"), "utf8").includes("value1 = 2")) return "the edit of file1.ts did not land";
  return ranEcho(arrivals, COMMAND_AT);
}
/** That the request after the `echo ok` of reply `at` carries its output. */
function ranEcho(arrivals: readonly Arrival[], at: number): string | undefined {
  // `ok` as a line of the output (not the command `echo ok` repeated), in the message's JSON, where a line break is the two characters \n (Cline's output is JSON inside it, escaped twice).
  if (!/(?:\\n|\\r|"|>)ok(?:\\|"|<)/.test(arrivals[at + 1]?.newest ?? "")) return `\`echo ok\`'s output is not in the request after it: ${arrivals[at + 1]?.newest.slice(0, 200)}`;
  return undefined;
}

/**
 * The same for a command whose text may hold `"ok"` too, with its quotes escaped: what follows the
 * output's `ok` is a line break, a quote that is not escaped, or a tag.
 */
function ranQuoted(command: string): (ws: string, arrivals: readonly Arrival[]) => string | undefined {
  const output = /(?:\\+[nr]|"|>)ok(?:\\+[nr]|(?<!\\)"|<)/;
  return (_ws, arrivals) => (output.test(arrivals[1]?.newest ?? "") ? undefined : `\`${command}\`'s output is not in the request after it: ${arrivals[1]?.newest.slice(0, 200)}`);
}

/** The peers, Claude Code first (the goal names it): package, version, command, and how to run it. */
const PEERS = [
  { ...CLAUDE_CODE, make: claudeCode },
  { ...OPENCODE, make: opencode },
  { ...CLINE, make: cline },
];

const log = (text: string): void => void process.stderr.write(`  ${text}\n`);
const oneLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 300);

type Round = { five: TaskRun; one: TaskRun; longAnswer: TaskRun; opening: TaskRun; openingQuoted: TaskRun; openingParsed: TaskRun; oneFresh?: TaskRun };
/** An agent's rounds, its home across them, and why it stopped when it did. */
type Entry = { agent: Agent; home: string; rounds: Array<Round | undefined>; failed?: string };
const newHome = (): string => realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-peers-home-")));

const gapMs = (run: TaskRun): number => run.arrivals[COMMAND_AT + 1]!.at - run.arrivals[COMMAND_AT]!.at;
const growthBytes = (run: TaskRun): number => (run.arrivals[FIVE_REPLIES.length - 1]!.bytes - run.arrivals[0]!.bytes) / (FIVE_REPLIES.length - 1);

type Measure = (round: Round) => number;
const MEASURES = {
  fiveCpu: (r: Round) => r.five.cpuMs,
  fiveLeftCpu: (r: Round) => r.five.leftCpuMs,
  oneCpu: (r: Round) => r.one.cpuMs,
  oneLeftCpu: (r: Round) => r.one.leftCpuMs,
  longAnswerCpu: (r: Round) => r.longAnswer.cpuMs - r.one.cpuMs,
  oneFreshCpu: (r: Round) => r.oneFresh?.cpuMs ?? Number.NaN,
  gap: (r: Round) => gapMs(r.five),
  openingGap: (r: Round) => r.opening.arrivals[1]!.at - r.opening.arrivals[0]!.at,
  openingQuotedGap: (r: Round) => r.openingQuoted.arrivals[1]!.at - r.openingQuoted.arrivals[0]!.at,
  openingParsedGap: (r: Round) => r.openingParsed.arrivals[1]!.at - r.openingParsed.arrivals[0]!.at,
  growth: (r: Round) => growthBytes(r.five),
} satisfies Record<string, Measure>;

const valueOf = (entry: Entry, measure: Measure): number => median(entry.rounds.flatMap((r) => (r ? [measure(r)] : [])));
/** The median over the rounds both ran of peer / Cairn. */
function ratioOf(peer: Entry, base: Entry, measure: Measure): number {
  const ratios = peer.rounds.flatMap((r, i) => {
    const b = base.rounds[i];
    return r && b ? [measure(r) / measure(b)] : [];
  });
  return median(ratios);
}

async function runRound(entry: Entry): Promise<Round | undefined> {
  if (entry.failed !== undefined) return undefined;
  try {
    const five = await runTask(entry.agent, FIVE_REPLIES, FIVE_PROMPT, didWork, entry.home);
    const one = await runTask(entry.agent, ONE_TURN, ONE_PROMPT, undefined, entry.home);
    const longAnswer = await runTask(entry.agent, LONG_ANSWER, ONE_PROMPT, undefined, entry.home);
    const opening = await runTask(entry.agent, OPENING, OPENING_PROMPT, (_ws, arrivals) => ranEcho(arrivals, 0), entry.home);
    const openingQuoted = await runTask(entry.agent, openingWith(QUOTED_COMMAND), `Run ${QUOTED_COMMAND}, then finish.`, ranQuoted(QUOTED_COMMAND), entry.home);
    const openingParsed = await runTask(entry.agent, openingWith(PARSED_COMMAND), `Run ${PARSED_COMMAND}, then finish.`, ranQuoted(PARSED_COMMAND), entry.home);
    // Cairn's first run in a home: what a person's very first task costs.
    const oneFresh = entry.agent.name === "Cairn" ? await runTask(entry.agent, ONE_TURN, ONE_PROMPT) : undefined;
    return { five, one, longAnswer, opening, openingQuoted, openingParsed, ...(oneFresh ? { oneFresh } : {}) };
  } catch (error) {
    entry.failed = oneLine(error);
    log(`${entry.agent.name}: ${entry.failed}`);
    return undefined;
  }
}

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(path.join(ROOT, "packages/cli/dist"))) return [{ bench: "peers", case: "all rows", measure: "skipped: build first (npm run build)" }];
  const base: Entry = { agent: cairn(cairnBin), home: newHome(), rounds: [] };
  const peers: Entry[] = [];
  const rows: BenchRow[] = [];
  for (const spec of PEERS) {
    const installed = await installPeer(spec.pkg, spec.version, spec.bin);
    if ("reason" in installed) {
      rows.push({ bench: "peers", case: `${spec.pkg}@${spec.version}`, measure: `not measured: ${installed.reason}` });
      continue;
    }
    peers.push({ agent: spec.make(installed.bin, installed.version.replace(/\s*\(.*\)$/, "")), home: newHome(), rounds: [] });
  }
  const entries = [base, ...peers];
  try {
    return await measure(base, peers, entries, rows);
  } finally {
    for (const entry of entries) rmSync(entry.home, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

async function measure(base: Entry, peers: Entry[], entries: Entry[], rows: BenchRow[]): Promise<BenchRow[]> {
  // One round unmeasured: the page cache, and whatever an agent keeps in its home at its first run, warm for all alike.
  for (const entry of entries) await runRound(entry);
  if (base.failed !== undefined) throw new Error(`bench peers: Cairn's task failed: ${base.failed}`);
  for (let i = 0; i < ROUNDS; i++) {
    for (const entry of entries) entry.rounds.push(await runRound(entry));
    const line = entries.map((e) => {
      const r = e.rounds[i];
      const left = r ? r.five.leftCpuMs + r.one.leftCpuMs : 0;
      return r
        ? `${e.agent.name} ${r.five.cpuMs.toFixed(0)}/${r.one.cpuMs.toFixed(0)} ms CPU (a long answer +${MEASURES.longAnswerCpu(r).toFixed(0)})${left > 0 ? ` (${left.toFixed(0)} of it in processes left running)` : ""}, gap ${gapMs(r.five).toFixed(0)} ms (first reply ${MEASURES.openingGap(r).toFixed(0)} ms, quoted ${MEASURES.openingQuotedGap(r).toFixed(0)} ms, a loop ${MEASURES.openingParsedGap(r).toFixed(0)} ms), +${growthBytes(r.five).toFixed(0)} B`
        : `${e.agent.name} -`;
    });
    log(`round ${i + 1}: ${line.join("; ")}`);
  }
  if (base.failed !== undefined) throw new Error(`bench peers: Cairn's task failed: ${base.failed}`);
  const measured = peers.filter((p) => p.rounds.some((r) => r !== undefined));
  for (const peer of peers) {
    if (peer.failed !== undefined) rows.push({ bench: "peers", case: peer.agent.name, measure: `${measured.includes(peer) ? "stopped" : "not measured"}: ${peer.failed}` });
  }

  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const bytes = (v: number) => `${v.toFixed(0)} B`;
  // A daemon's share (Cline's hub) is counted, and shown, since a person's next task may find it running.
  const cell = (entry: Entry, format: (v: number) => string, measure: Measure, left?: Measure) => {
    const daemon = left ? valueOf(entry, left) : 0;
    return `${entry.agent.name} ${format(valueOf(entry, measure))}${daemon > 0 ? ` (${format(daemon)} of it in processes it left running)` : ""}`;
  };
  const side = (format: (v: number) => string, measure: Measure, left?: Measure) => ({
    measure: cell(base, format, measure, left),
    baseline: measured.map((p) => cell(p, format, measure, left)).join("; ") || "no peer ran",
    ratio: measured.map((p) => `${p.agent.name.split(" ").slice(0, -1).join(" ")} ${ratioOf(p, base, measure).toFixed(2)}×`).join("; "),
  });
  const claude = measured.find((p) => p.agent.name.startsWith("Claude Code"));
  const counted = `median of ${ROUNDS} interleaved rounds; ratio peer / Cairn per round`;
  const growth = valueOf(base, MEASURES.growth);
  const opening = valueOf(base, MEASURES.openingGap);
  const openingQuoted = valueOf(base, MEASURES.openingQuotedGap);
  const openingParsed = valueOf(base, MEASURES.openingParsedGap);
  rows.push(
    {
      bench: "peers",
      case: `five-reply task (read, edit, echo ok, read, finish), CPU with children (${counted})`,
      ...side(ms, MEASURES.fiveCpu, MEASURES.fiveLeftCpu),
      goal: `Claude Code ≥ ${GOAL_CC_RATIO}× Cairn's`,
      ...(claude ? { pass: ratioOf(claude, base, MEASURES.fiveCpu) >= GOAL_CC_RATIO } : {}),
    },
    {
      bench: "peers",
      case: `one-turn task, CPU with children (${counted})`,
      ...side(ms, MEASURES.oneCpu, MEASURES.oneLeftCpu),
      goal: `Cairn ≤ ${GOAL_ONE_TURN_MS} ms`,
      pass: valueOf(base, MEASURES.oneCpu) <= GOAL_ONE_TURN_MS,
    },
    {
      bench: "peers",
      case: `one-turn task, Cairn's first run in a fresh home (it compiles everything and writes its code cache), CPU with children (median of ${ROUNDS} rounds)`,
      measure: ms(valueOf(base, MEASURES.oneFreshCpu)),
      baseline: `Cairn in its home: ${ms(valueOf(base, MEASURES.oneCpu))}`,
    },
    {
      bench: "peers",
      case: `CPU a 40,000-character final answer adds to the one-turn task, streamed at once in 2,000 deltas (${counted})`,
      ...side(ms, MEASURES.longAnswerCpu),
      goal: "— (measured: each delta's cost, mostly the AI SDK's web streams, see bench/README.md)",
    },
    {
      bench: "peers",
      case: `gap from a command's reply to the next request, first command of the five-reply task (its third reply) (${counted})`,
      ...side(ms, MEASURES.gap),
      goal: `Cairn ≤ ${GOAL_GAP_MS} ms`,
      pass: valueOf(base, MEASURES.gap) <= GOAL_GAP_MS,
    },
    {
      bench: "peers",
      case: `gap from a command's reply to the next request, the command being the task's first reply, sent at once (${counted})`,
      ...side(ms, MEASURES.openingGap),
      goal: `Cairn ≤ ${GOAL_GAP_MS} ms, the lowest`,
      pass: opening <= GOAL_GAP_MS && measured.every((p) => opening < valueOf(p, MEASURES.openingGap)),
    },
    {
      bench: "peers",
      case: `the same gap with ${QUOTED_COMMAND} as the first reply (quotes and a redirect; Cairn reads it without its shell parser) (${counted})`,
      ...side(ms, MEASURES.openingQuotedGap),
      goal: `Cairn ≤ ${GOAL_GAP_MS} ms, the lowest`,
      pass: openingQuoted <= GOAL_GAP_MS && measured.every((p) => openingQuoted < valueOf(p, MEASURES.openingQuotedGap)),
    },
    {
      bench: "peers",
      case: `the same gap with ${PARSED_COMMAND} as the first reply (a loop and an expansion: Cairn loads its shell parser then) (${counted})`,
      ...side(ms, MEASURES.openingParsedGap),
      goal: `Cairn ≤ ${GOAL_GAP_MS} ms (the parser's load falls inside it: see the head of peers.ts)`,
      pass: openingParsed <= GOAL_GAP_MS,
    },
    {
      bench: "peers",
      case: `growth of the main loop's request per reply, five-reply task (${counted})`,
      ...side(bytes, MEASURES.growth),
      goal: `Cairn ≤ ${GOAL_GROWTH_BYTES} B, the lowest`,
      pass: growth <= GOAL_GROWTH_BYTES && measured.every((p) => growth < valueOf(p, MEASURES.growth)),
    },
  );
  return rows;
}
