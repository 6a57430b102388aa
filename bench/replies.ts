/**
 * What each reply costs between the model's answer and the next request (issue 26), through the real
 * CLI against the scripted model, default settings (sandbox, checkpoints, rules, focus chain on):
 *
 * - The gap after a command: a task of read, edit, three `echo ok` replies, finish. From the request
 *   the command came back on to the next request's arrival (the reply's stream, the classifier, the
 *   sandboxed command, the journal, the step's checkpoint). The first command of the task is measured
 *   against the later ones of the same run, which pay no one-time loading. Goal: ≤ 100 ms, every
 *   command. Beside it, a task whose very first reply is the command (what the first command needs
 *   starts as its call streams, and the scripted model sends it at once, so it starts inside this
 *   gap; a model's call usually streams for a while first, though the fastest providers can send a
 *   short one in an event or two). `echo ok` is plain and needs no shell parser; a first reply of
 *   `for w in ok; do echo "$w"; done` (a loop, an expansion) needs it, and loads it inside the gap.
 *   And the same task with its replies streamed at a fast model's
 *   pace (300 ms to the first byte, 15 ms between events, so the call streams for ~100 ms), the gaps
 *   counted from a reply's last byte: the first command's against the second's.
 * - The growth of the request per reply: the five-reply task (read, edit, `echo ok`, read, finish),
 *   the bytes each request body adds to the one before, against the bytes the calls and their results
 *   themselves add (their messages with the tool-call and tool-result blocks alone, as the provider
 *   receives them): what is left is what the agent adds beside them (notes). Goal: ≤ 300 B per reply.
 *
 * Every task gets a fresh workspace; all share one CAIRN_HOME, whose first task is not measured (a
 * person's home is used day after day, its code cache included; the peers bench counts the same way).
 */
import { spawn } from "node:child_process";
import diagnostics from "node:diagnostics_channel";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedModelServer, type RecordedRequest, type ScriptedTurn } from "../test/support/scripted-model-server.js";
import type { BenchRow } from "./run.js";
import { median } from "./stats.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** CAIRN_BENCH_BIN: another build's bin/cairn.js, to measure it the same way (an older commit's, for a before/after). */
const cairnBin = process.env.CAIRN_BENCH_BIN ?? path.join(ROOT, "packages/cli/bin/cairn.js");
const RUNS = 9;
const GOAL_GAP_MS = 100;
const GOAL_GROWTH_BYTES = 300;
/** A fast model's pace: the wait for the first byte, and between two events of the stream. */
const FIRST_BYTE_MS = 300;
const EVENT_MS = 15;

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const log = (text: string): void => void process.stderr.write(`  ${text}\n`);

/** The time, and the CLI's CPU so far (ms, its ended children included). */
type Stamp = { at: number; cpuMs: number };
/** At a request's arrival: the stamp and the body; `end`, the stamp when the last byte of its reply left the server. */
type Arrival = Stamp & { request: RecordedRequest; end?: Stamp };

/** utime + stime + cutime + cstime of a process (fields 14-17 of /proc/<pid>/stat) in ms; NaN off Linux. */
export function cpuOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * The CAIRN_HOME every task of the bench shares, as a person's home is used day after day (its code
 * cache, written by an unmeasured first task, included): `run` makes it and removes it.
 */
let home: string | undefined;

/** One `cairn run` in a fresh workspace against a server answering `script` in order; the arrival time and body of each request. */
async function runTask(script: ScriptedTurn[], prompt: string): Promise<Arrival[]> {
  if (home === undefined) throw new Error("bench replies: no home (run() makes it)");
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-replies-")));
  const ws = path.join(dir, "ws");
  mkdirSync(ws);
  for (let i = 0; i < 10; i++) writeFileSync(path.join(ws, `file${i}.ts`), `export const value${i} = ${i};\n`);
  const arrivals: Arrival[] = [];
  let pid: number | undefined;
  const server = await startScriptedModelServer({
    responder: (request, index) => {
      arrivals.push({ at: performance.now(), cpuMs: cpuOf(pid), request });
      return script[index] ?? script[script.length - 1]!;
    },
  });
  // Node's own channel for a server response's 'finish' (its last byte handed to the socket). The CLI
  // sends a request only once the reply before it has ended, so what ends answers the latest arrival.
  const port = Number(new URL(server.url).port);
  const ended = (message: unknown): void => {
    const arrival = (message as { socket: Socket }).socket.localPort === port ? arrivals.at(-1) : undefined;
    if (arrival) arrival.end = { at: performance.now(), cpuMs: cpuOf(pid) };
  };
  diagnostics.subscribe("http.server.response.finish", ended);
  try {
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [cairnBin, "run", "--provider", "anthropic", "--base-url", server.url, "--cwd", ws, "--auto-approve", "read,edit,all-commands", "--json", prompt],
        { cwd: ws, env: { ...process.env, CAIRN_HOME: home, ANTHROPIC_API_KEY: "k" }, stdio: ["ignore", "ignore", "pipe"] },
      );
      pid = child.pid;
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
      child.on("error", reject);
      child.on("close", (exit) => {
        clearTimeout(timer);
        if (exit !== 0) reject(new Error(`bench replies: cairn run exited with ${exit}: ${stderr.slice(-400)}`));
        else resolve(exit);
      });
    });
    void code;
    return arrivals;
  } finally {
    diagnostics.unsubscribe("http.server.response.finish", ended);
    await server.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

/** Between request i (whose reply was a command) and request i + 1: the wall ms, and the CLI's CPU ms (a shared machine stretches the first, hardly the second). */
type Gap = { wall: number; cpu: number };
function gap(arrivals: readonly Arrival[], i: number): Gap {
  return { wall: arrivals[i + 1]!.at - arrivals[i]!.at, cpu: arrivals[i + 1]!.cpuMs - arrivals[i]!.cpuMs };
}
/** Between the last byte of the reply to request i (a command) and request i + 1: the gap without the reply's own stream. */
function gapAfterReply(arrivals: readonly Arrival[], i: number): Gap {
  const end = arrivals[i]!.end;
  if (end === undefined) throw new Error(`bench replies: the server did not finish its reply to request ${i + 1}`);
  return { wall: arrivals[i + 1]!.at - end.at, cpu: arrivals[i + 1]!.cpuMs - end.cpuMs };
}
const medianGap = (gaps: readonly Gap[]): Gap => ({ wall: median(gaps.map((g) => g.wall)), cpu: median(gaps.map((g) => g.cpu)) });

const echo = call("execute_command", { command: "echo ok", requires_approval: false });
/** A command the classifier needs tree-sitter for (a loop, an expansion): the parser loads with it. */
const PARSED_COMMAND = 'for w in ok; do echo "$w"; done';
const parsedEcho = call("execute_command", { command: PARSED_COMMAND, requires_approval: false });
const done = call("attempt_completion", { result: "done" });

/**
 * The gaps after the first command and after the later ones (median), in a task whose first command is
 * its third reply; and after a command that is the task's first reply, sent at once, and streamed (with
 * the gap after the second command, streamed too).
 */
export async function commandGaps(): Promise<{ first: Gap; later: Gap; firstReply: Gap; firstReplyParsed: Gap; streamed: { firstReply: Gap; later: Gap } }> {
  const arrivals = await runTask([call("read_file", { path: "file1.ts" }), call("write_to_file", { path: "new.txt", content: "one line\n" }), echo, echo, echo, done], "Read, edit, then run echo three times.");
  if (arrivals.length < 6) throw new Error(`bench replies: expected 6 requests, the task sent ${arrivals.length}`);
  // The same command as the task's very first reply: the parser and the sandbox's network start loading as the call streams, which the scripted model does at once, so they load inside this gap.
  const opening = await runTask([echo, echo, done], "Run echo twice.");
  const openingParsed = await runTask([parsedEcho, echo, done], "Run echo twice.");
  // At a model's pace they load as the call streams, as with a real provider.
  const paced: ScriptedTurn = { ...echo, delayMs: FIRST_BYTE_MS, chunkDelayMs: EVENT_MS };
  const streamed = await runTask([paced, paced, done], "Run echo twice.");
  return {
    first: gap(arrivals, 2),
    later: medianGap([gap(arrivals, 3), gap(arrivals, 4)]),
    firstReply: gap(opening, 0),
    firstReplyParsed: gap(openingParsed, 0),
    streamed: { firstReply: gapAfterReply(streamed, 0), later: gapAfterReply(streamed, 1) },
  };
}

type Body = { messages?: { role: string; content: unknown }[] };
/** Per reply: what the request grew by, and what of that the calls and their results are (their messages without any other block). */
export async function growth(): Promise<{ perReply: number; callsAndResults: number; sizes: number[] }> {
  const arrivals = await runTask(
    [
      call("read_file", { path: "file1.ts" }),
      call("write_to_file", { path: "new.txt", content: "one line\n" }),
      echo,
      call("read_file", { path: "file2.ts" }),
      done,
    ],
    "Read, edit, run, read, finish.",
  );
  const sizes = arrivals.map((a) => Buffer.byteLength(JSON.stringify(a.request.body)));
  const replies = sizes.length - 1;
  const last = arrivals.at(-1)!.request.body as Body;
  const firstCount = ((arrivals[0]!.request.body as Body).messages ?? []).length;
  let own = 0;
  for (const message of (last.messages ?? []).slice(firstCount)) {
    const content = Array.isArray(message.content) ? (message.content as { type?: string }[]) : [];
    const calls = content.filter((block) => block.type === "tool_use" || block.type === "tool_result");
    // With the comma that joins it; without the provider's cache marker, which only moves to the newest message.
    own += Buffer.byteLength(JSON.stringify({ ...message, content: calls }, (key, value: unknown) => (key === "cache_control" ? undefined : value))) + 1;
  }
  return { perReply: (sizes.at(-1)! - sizes[0]!) / replies, callsAndResults: own / replies, sizes };
}

const ms = (value: number): string => `${value.toFixed(0)} ms`;
const both = (g: Gap): string => `${ms(g.wall)} (CPU ${ms(g.cpu)})`;
/** A gap against its baseline; CPU is counted in 10 ms ticks, so a baseline of none has no ratio. */
const ratios = (g: Gap, base: Gap): string => `${(g.wall / base.wall).toFixed(2)}× wall, ${base.cpu > 0 ? `${(g.cpu / base.cpu).toFixed(2)}×` : "—"} CPU`;

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(path.join(ROOT, "packages/cli/dist"))) return [{ bench: "replies", case: "CLI rows", measure: "skipped: build first (npm run build)" }];
  const firsts: Gap[] = [];
  const laters: Gap[] = [];
  const openings: Gap[] = [];
  const parsedOpenings: Gap[] = [];
  const streamedOpenings: Gap[] = [];
  const streamedLaters: Gap[] = [];
  home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-replies-home-")));
  let grown: Awaited<ReturnType<typeof growth>>;
  try {
    await commandGaps(); // the home's first run, unmeasured: it compiles everything and writes the code cache
    for (let i = 0; i < RUNS; i++) {
      const gaps = await commandGaps();
      firsts.push(gaps.first);
      laters.push(gaps.later);
      openings.push(gaps.firstReply);
      parsedOpenings.push(gaps.firstReplyParsed);
      streamedOpenings.push(gaps.streamed.firstReply);
      streamedLaters.push(gaps.streamed.later);
      log(`command gaps: first ${both(gaps.first)}, later ${both(gaps.later)}; as the task's first reply ${both(gaps.firstReply)}, needing the parser ${both(gaps.firstReplyParsed)}; streamed, from the last byte: first reply ${both(gaps.streamed.firstReply)}, second ${both(gaps.streamed.later)}`);
    }
    grown = await growth();
  } finally {
    rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    home = undefined;
  }
  const first = medianGap(firsts);
  const later = medianGap(laters);
  const opening = medianGap(openings);
  const parsedOpening = medianGap(parsedOpenings);
  const streamedOpening = medianGap(streamedOpenings);
  const streamedLater = medianGap(streamedLaters);
  log(`request sizes: ${grown.sizes.join(", ")} B`);
  const runs = (gaps: readonly Gap[]): string => gaps.map((g) => g.wall.toFixed(0)).join(", ");
  return [
    {
      bench: "replies",
      case: `gap from a command's reply to the next request, first command of a task (its third reply), real CLI, sandbox on (median of ${RUNS} tasks)`,
      measure: `${both(first)}; runs: ${runs(firsts)} ms`,
      baseline: `later commands of the same tasks: ${both(later)}`,
      ratio: ratios(first, later),
      goal: `≤ ${GOAL_GAP_MS} ms`,
      pass: first.wall <= GOAL_GAP_MS,
    },
    {
      bench: "replies",
      case: `gap after a command that is the task's first reply (median of ${RUNS} tasks)`,
      measure: `${both(opening)}; runs: ${runs(openings)} ms`,
      baseline: `later commands: ${both(later)}`,
      ratio: ratios(opening, later),
      goal: `≤ ${GOAL_GAP_MS} ms`,
      pass: opening.wall <= GOAL_GAP_MS,
    },
    {
      bench: "replies",
      case: `gap after a command that is the task's first reply and needs the shell parser (${PARSED_COMMAND}), sent at once (median of ${RUNS} tasks)`,
      measure: `${both(parsedOpening)}; runs: ${runs(parsedOpenings)} ms`,
      baseline: `the same with echo ok, which needs no parser: ${both(opening)}`,
      ratio: ratios(parsedOpening, opening),
      goal: `≤ ${GOAL_GAP_MS} ms`,
      pass: parsedOpening.wall <= GOAL_GAP_MS,
    },
    {
      bench: "replies",
      case: `gap after a command that is the task's first reply, streamed at a fast model's pace (${FIRST_BYTE_MS} ms to the first byte, ${EVENT_MS} ms between events), from the reply's last byte (median of ${RUNS} tasks)`,
      measure: `${both(streamedOpening)}; runs: ${runs(streamedOpenings)} ms`,
      baseline: `the second command, streamed too: ${both(streamedLater)}`,
      ratio: ratios(streamedOpening, streamedLater),
      goal: `≤ ${GOAL_GAP_MS} ms`,
      pass: streamedOpening.wall <= GOAL_GAP_MS,
    },
    {
      bench: "replies",
      case: "gap after a later command (median of 2 per task)",
      measure: both(later),
      goal: `≤ ${GOAL_GAP_MS} ms`,
      pass: later.wall <= GOAL_GAP_MS,
    },
    {
      bench: "replies",
      case: "growth of the request per reply, five-reply task (read, edit, echo ok, read, finish), real CLI",
      measure: `${grown.perReply.toFixed(0)} B per reply (requests: ${grown.sizes.map((s) => s.toLocaleString("en-US")).join(", ")} B)`,
      baseline: `the calls and results alone: ${grown.callsAndResults.toFixed(0)} B per reply`,
      ratio: `${grown.perReply >= grown.callsAndResults ? "+" : "−"}${Math.abs(grown.perReply - grown.callsAndResults).toFixed(0)} B beside them`,
      goal: `≤ ${GOAL_GROWTH_BYTES} B`,
      pass: grown.perReply <= GOAL_GROWTH_BYTES,
    },
  ];
}
