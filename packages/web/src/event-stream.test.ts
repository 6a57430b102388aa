import { createServer, get, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AgentEvent } from "@cairn/core";
import { afterEach, describe, expect, it } from "vitest";
import { EventLog } from "./event-log.js";
import { streamEvents } from "./event-stream.js";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? (server.closeAllConnections(), server.close(() => resolve())) : resolve())));

/** A real HTTP server streaming `log`; resolves with the frames one page receives until `count` have come. */
async function page(log: EventLog, count: number): Promise<Array<{ id: number; task_id: string; event: { type: string; message?: string } }>> {
  server ??= createServer((req, res) => streamEvents(req, res, log, 0, {}));
  if (!server.listening) await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path: "/" }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => {
        body += d;
        const frames = body.split("\n\n").filter((block) => block.includes("data: "));
        if (frames.length < count) return;
        res.destroy();
        resolve(frames.map((block) => ({ id: Number(/^id: (\d+)$/m.exec(block)![1]), ...JSON.parse(/^data: (.*)$/m.exec(block)![1]!) })));
      });
    }).on("error", reject);
  });
}

/** An event no JSON.stringify can serialise: its input nested 100,000 levels. */
function unserialisable(): AgentEvent {
  const input = JSON.parse(`{"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}`) as Record<string, unknown>;
  return { type: "tool_call", tool_use_id: "c1", name: "read_file", kind: "read", input, summary: "read", status: "pending", locations: [] };
}

describe("the event stream given an event it cannot serialise", () => {
  it("sends a notice in its place, and every page, now and later, gets the events around it", async () => {
    const log = new EventLog();
    log.append("t1", { type: "turn_start", turn: 1, reason: "start" });
    log.append("t1", unserialisable());
    const live = page(log, 4);
    log.append("t2", { type: "turn_start", turn: 1, reason: "start" });
    log.append("t2", unserialisable());
    const frames = await live;
    expect(frames.map((f) => [f.id, f.task_id, f.event.type])).toEqual([
      [1, "t1", "turn_start"],
      [2, "t1", "system"],
      [3, "t2", "turn_start"],
      [4, "t2", "system"],
    ]);
    expect(frames[1]!.event.message).toMatch(/^Cairn could not send a tool_call event to this page \(Maximum call stack size exceeded\); the task goes on\.$/);
    // A page opened afterwards replays the same.
    expect((await page(log, 4)).map((f) => f.event.type)).toEqual(["turn_start", "system", "turn_start", "system"]);
  });
});
