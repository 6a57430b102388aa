import { describe, expect, it } from "vitest";
import { CallScheduler, type ToolExecution } from "./call-scheduler.js";

type Call = { id: string; read: boolean; ms: number; asks?: number };

/** Runs calls that take real time, and writes down when each started, cleared and ended. */
async function runReply(execution: ToolExecution, calls: Call[]) {
  const log: string[] = [];
  const settledOrder: string[] = [];
  const started = Date.now();
  const spans = new Map<string, { start: number; end: number }>();
  const scheduler = new CallScheduler<Call, string>({
    execution,
    concurrent: (call) => call.read,
    run: async (call, { cleared }) => {
      const start = Date.now() - started;
      log.push(`start ${call.id}`);
      if (call.asks) {
        log.push(`ask ${call.id}`);
        await new Promise((resolve) => setTimeout(resolve, call.asks));
        log.push(`answered ${call.id}`);
      }
      cleared();
      await new Promise((resolve) => setTimeout(resolve, call.ms));
      log.push(`end ${call.id}`);
      spans.set(call.id, { start, end: Date.now() - started });
      return `result ${call.id}`;
    },
    settled: (call) => settledOrder.push(call.id),
  });
  for (const call of calls) scheduler.add(call);
  const results = await scheduler.finished();
  const overlap = (a: string, b: string) => spans.get(a)!.start < spans.get(b)!.end && spans.get(b)!.start < spans.get(a)!.end;
  return { log, results, settledOrder, overlap };
}

describe("CallScheduler", () => {
  it("runs the reads of a reply side by side and reports them in the reply's order", async () => {
    const { results, settledOrder, overlap } = await runReply("parallel", [
      { id: "a", read: true, ms: 120 },
      { id: "b", read: true, ms: 20 },
      { id: "c", read: true, ms: 60 },
    ]);
    expect(overlap("a", "b")).toBe(true);
    expect(overlap("a", "c")).toBe(true);
    // b finished first, yet every result comes back where it was asked for.
    expect(results).toEqual(["result a", "result b", "result c"]);
    expect(settledOrder).toEqual(["a", "b", "c"]);
  });

  it("runs a write after every call before it, and the reads after it after the write", async () => {
    const { log, results, overlap } = await runReply("parallel", [
      { id: "r1", read: true, ms: 80 },
      { id: "r2", read: true, ms: 40 },
      { id: "w", read: false, ms: 40 },
      { id: "r3", read: true, ms: 40 },
      { id: "r4", read: true, ms: 40 },
    ]);
    expect(log.indexOf("start w")).toBeGreaterThan(log.indexOf("end r1"));
    expect(log.indexOf("start w")).toBeGreaterThan(log.indexOf("end r2"));
    expect(log.indexOf("start r3")).toBeGreaterThan(log.indexOf("end w"));
    expect(overlap("r1", "r2")).toBe(true);
    expect(overlap("r3", "r4")).toBe(true);
    expect(results).toEqual(["result r1", "result r2", "result w", "result r3", "result r4"]);
  });

  it("asks for one read at a time, in the reply's order, and the approved ones run together", async () => {
    const { log, overlap } = await runReply("parallel", [
      { id: "a", read: true, ms: 150, asks: 40 },
      { id: "b", read: true, ms: 100, asks: 40 },
    ]);
    // b is asked only once a has its answer; a is running by then, and both run together.
    expect(log.indexOf("ask b")).toBeGreaterThan(log.indexOf("answered a"));
    expect(log.indexOf("ask b")).toBeLessThan(log.indexOf("end a"));
    expect(overlap("a", "b")).toBe(true);
  });

  it("sequential: every call waits for the one before it", async () => {
    const { log, results } = await runReply("sequential", [
      { id: "a", read: true, ms: 40 },
      { id: "b", read: true, ms: 10 },
      { id: "c", read: true, ms: 10 },
    ]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(results).toEqual(["result a", "result b", "result c"]);
  });

  it("a call that never clears (it ran to its end) still lets the next read start", async () => {
    const order: string[] = [];
    const scheduler = new CallScheduler<string, string>({
      execution: "parallel",
      concurrent: () => true,
      run: async (id) => {
        order.push(id);
        return id;
      },
      settled: () => {},
    });
    scheduler.add("refused early");
    scheduler.add("next");
    expect(await scheduler.finished()).toEqual(["refused early", "next"]);
    expect(order).toEqual(["refused early", "next"]);
  });
});
