import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer } from "../support/scripted-model-server.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";

/**
 * A slow source for web_fetch: it holds every /slow/* request until all three have arrived (or
 * `holdMs` passed), so the pages come back only if the three fetches are in flight together.
 * /after-write says whether the file the reply writes existed when the request came in.
 */
type Arrival = { path: string; at: number; answeredAt?: number; releasedBy?: "all arrived" | "timeout"; fileExisted?: boolean };

async function startSlowSource(workspace: string, holdMs: number) {
  const arrivals: Arrival[] = [];
  let waiting: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    // performance.now(), not Date.now(): an answer sent in the millisecond its request arrived is still after it.
    const arrival: Arrival = { path: req.url ?? "", at: performance.now() };
    arrivals.push(arrival);
    const answer = (text: string, extraMs = 0) =>
      setTimeout(() => {
        arrival.answeredAt = performance.now();
        res.writeHead(200, { "content-type": "text/plain" }).end(text);
      }, extraMs);
    if (arrival.path === "/after-write") {
      arrival.fileExisted = existsSync(path.join(workspace, "out.txt"));
      return answer("the page after the write");
    }
    const n = arrival.path.replace("/slow/", "");
    // The first page comes back last, so finishing order differs from the reply's order.
    const release = (by: Arrival["releasedBy"]) => {
      if (arrival.releasedBy) return;
      arrival.releasedBy = by;
      answer(`slow page ${n}`, n === "1" ? 300 : 0);
    };
    const timer = setTimeout(() => release("timeout"), holdMs);
    waiting.push(() => {
      clearTimeout(timer);
      release("all arrived");
    });
    if (arrivals.filter((a) => a.path.startsWith("/slow/")).length === 3) {
      for (const go of waiting) go();
      waiting = [];
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, arrivals, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

type Json = Record<string, unknown>;
const lines = (stdout: string): Json[] => stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Json);

describe("cairn run: the read-only calls of one reply run side by side", () => {
  const fx = useE2eFixture();
  let source: Awaited<ReturnType<typeof startSlowSource>> | undefined;
  afterEach(async () => {
    await source?.close();
    source = undefined;
  });

  async function run(holdMs: number, extraEnv: Record<string, string> = {}) {
    source = await startSlowSource(fx.workspace.dir, holdMs);
    fx.server = await startScriptedModelServer({
      turns: [
        {
          content: [
            { type: "text", text: "Three pages, then I write, then one more page." },
            { type: "tool_use", name: "web_fetch", input: { url: `${source.url}/slow/1` } },
            { type: "tool_use", name: "web_fetch", input: { url: `${source.url}/slow/2` } },
            { type: "tool_use", name: "web_fetch", input: { url: `${source.url}/slow/3` } },
            { type: "tool_use", name: "write_to_file", input: { path: "out.txt", content: "written between the reads\n" } },
            { type: "tool_use", name: "web_fetch", input: { url: `${source.url}/after-write` } },
          ],
        },
        { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "done" } }] },
      ],
    });
    const cli = await runCairn(
      ["run", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fx.server.url, "--auto-approve", "read,edit,browser", "--cwd", fx.workspace.dir, "--json", "--", "Read the pages"],
      { env: cleanEnv({ ANTHROPIC_API_KEY: "sk-ant-test", CAIRN_HOME: fx.home.dir, ...extraEnv }) },
    );
    expect(cli.code, cli.stderr).toBe(0);
    return { cli, events: lines(cli.stdout), arrivals: source.arrivals };
  }

  it("three fetches are in flight together, the write waits for them, the fetch after it sees the file, and results come back in call order", async () => {
    const { events, arrivals } = await run(8_000);
    const slow = arrivals.filter((a) => a.path.startsWith("/slow/"));
    expect(slow.map((a) => a.path).sort()).toEqual(["/slow/1", "/slow/2", "/slow/3"]);
    // Every slow request arrived before any was answered: they overlapped in time.
    expect(slow.every((a) => a.releasedBy === "all arrived")).toBe(true);
    expect(Math.max(...slow.map((a) => a.at))).toBeLessThan(Math.min(...slow.map((a) => a.answeredAt!)));

    // The write ran after the three reads before it had finished, and the read after it saw the file.
    const afterWrite = arrivals.find((a) => a.path === "/after-write")!;
    expect(afterWrite.fileExisted).toBe(true);
    expect(afterWrite.at).toBeGreaterThanOrEqual(Math.max(...slow.map((a) => a.answeredAt!)));
    expect(readFileSync(path.join(fx.workspace.dir, "out.txt"), "utf8")).toBe("written between the reads\n");

    const calls = events.filter((e) => e.type === "tool_call");
    const ended = (id: unknown) => events.findIndex((e) => e.type === "tool_call_update" && e.tool_use_id === id && e.status === "completed");
    const writeStart = events.findIndex((e) => e.type === "tool_call" && e.name === "write_to_file");
    const reads = calls.filter((c) => c.name === "web_fetch").slice(0, 3);
    for (const read of reads) expect(ended(read.tool_use_id)).toBeLessThan(writeStart);
    // Each call keeps its own lifecycle, keyed by its id.
    for (const call of calls) {
      const statuses = events.filter((e) => e.type === "tool_call_update" && e.tool_use_id === call.tool_use_id).map((e) => e.status);
      expect(statuses).toEqual(["running", "completed"]);
    }

    // The next request carries the results in the order of the calls, not the order they finished in.
    const sent = fx.server.requests[0]!.body as { messages: unknown[] };
    const next = fx.server.requests[1]!.body as { messages: Array<{ role: string; content: Array<{ type: string; tool_use_id?: string; content?: unknown }> | string }> };
    expect(next.messages.length).toBeGreaterThan(sent.messages.length);
    const assistant = next.messages[next.messages.length - 2]!;
    const results = next.messages[next.messages.length - 1]!;
    const callIds = (assistant.content as Array<{ type: string; id?: string }>).filter((p) => p.type === "tool_use").map((p) => p.id);
    const resultBlocks = (results.content as Array<{ type: string; tool_use_id?: string; content?: unknown }>).filter((p) => p.type === "tool_result");
    expect(resultBlocks.map((r) => r.tool_use_id)).toEqual(callIds);
    const texts = resultBlocks.map((r) => JSON.stringify(r.content));
    expect(texts[0]).toContain("slow page 1");
    expect(texts[1]).toContain("slow page 2");
    expect(texts[2]).toContain("slow page 3");
    expect(texts[3]).toContain("out.txt");
    expect(texts[4]).toContain("the page after the write");

    // The journal (what a resume starts from) wrote each result down in call order too.
    const tasks = readdirSync(path.join(fx.home.dir, "tasks"));
    const journal = readFileSync(path.join(fx.home.dir, "tasks", tasks[0]!, "conversation.jsonl"), "utf8");
    const lines = journal
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { message?: { role: string; content: Array<{ type: string; id?: string }> }; call_result?: { call: { id: string } } });
    // Cairn names the calls itself; the provider's ids above are only what goes back on the wire.
    const stored = lines.find((l) => l.message?.role === "assistant")!.message!.content.filter((p) => p.type === "tool-call").map((p) => p.id);
    expect(stored).toHaveLength(callIds.length);
    const journaled = lines.filter((l) => l.call_result).map((l) => l.call_result!.call.id);
    expect(journaled.slice(0, stored.length)).toEqual(stored);
  }, 60_000);

  it("toolExecution sequential (CAIRN_TOOL_EXECUTION): each fetch starts only after the one before it has its answer", async () => {
    const { arrivals } = await run(700, { CAIRN_TOOL_EXECUTION: "sequential" });
    const slow = arrivals.filter((a) => a.path.startsWith("/slow/"));
    expect(slow.map((a) => a.path)).toEqual(["/slow/1", "/slow/2", "/slow/3"]);
    // Alone in flight, the first two pages were released only by the source's timeout.
    expect(slow[0]!.releasedBy).toBe("timeout");
    expect(slow[1]!.releasedBy).toBe("timeout");
    expect(slow[1]!.at).toBeGreaterThanOrEqual(slow[0]!.answeredAt!);
    expect(slow[2]!.at).toBeGreaterThanOrEqual(slow[1]!.answeredAt!);
  }, 60_000);
});
