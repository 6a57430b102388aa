import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../../../../test/support/scripted-model-server.js";
import type { AgentEvent } from "../events/index.js";
import { createModel } from "../model/providers.js";
import { allTools } from "../tools/registry.js";
import { foldEvent, initialTranscript } from "../transcript/index.js";
import { Task } from "./task.js";

let server: ScriptedModelServer | undefined;
let cwd: string | undefined;
afterEach(async () => {
  await server?.close();
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

it("a reply's attempts and continuations stream under one id, the id its assistant event keeps", async () => {
  cwd = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-turn-id-")));
  server = await startScriptedModelServer({
    turns: [
      // Cut mid-stream: retried; then cut by the output limit: continued.
      { content: [{ type: "text", text: "Half a sentence that breaks" }], cutAfterChars: 10, chunkSize: 5 },
      { content: [{ type: "text", text: "Part one, " }], stopReason: "max_tokens" },
      { content: [{ type: "text", text: "part two." }] },
    ],
  });
  const task = new Task({
    model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }), retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    tools: { list: allTools },
    workspace: { cwd },
  });
  // Only the first reply matters here: what the task does after it (the script has ended) does not.
  const events: AgentEvent[] = [];
  for await (const event of task.run("say it")) {
    if (events.some((e) => e.type === "assistant")) {
      task.abort();
      continue;
    }
    events.push(event);
  }

  const framing = events.filter((e) => e.type === "message_start" || e.type === "text_delta" || e.type === "stream_discarded");
  const ids = new Set(framing.map((e) => (e as { message_id: string }).message_id));
  const assistant = events.find((e) => e.type === "assistant");
  expect(framing.map((e) => e.type).filter((type, i, all) => type !== all[i - 1])).toEqual(["message_start", "text_delta", "stream_discarded", "message_start", "text_delta", "message_start", "text_delta"]);
  expect([...ids]).toEqual([assistant?.type === "assistant" ? assistant.message.id : "no assistant event"]);

  // What a person sees: the retried attempt's text gone, the two continuations as one message.
  const shown = events.reduce(foldEvent, initialTranscript()).items.filter((item) => item.kind === "assistant");
  expect(shown.map((item) => item.text)).toEqual(["Part one, part two."]);
});
