import { describe, expect, it } from "vitest";
import type { RecordedExchange, Recording } from "./recording-format.js";
import { fingerprint, RecordingReplay } from "./recording-replay.js";

const anthropicBody = (results: string[]) => ({
  system: "You work in /work/a at 2026-11-28 17:00 UTC",
  messages: [
    { role: "user", content: [{ type: "text", text: "the task\n<environment_details>\nWorkspace: /work/a\n</environment_details>" }] },
    ...results.flatMap((text, i) => [
      { role: "assistant", content: [{ type: "tool_use", id: `t${i}`, name: "read_file", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: `t${i}`, content: [{ type: "text", text }] }, { type: "text", text: "[Environment: 2026-11-28 17:00 UTC · ACT mode · context 1 / 2 tokens (50%)]" }] },
    ]),
  ],
});

const openaiBody = (results: string[]) => ({
  messages: [
    { role: "system", content: "system" },
    { role: "user", content: "the task" },
    ...results.flatMap((text, i) => [
      { role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "read_file", arguments: "{}" } }] },
      { role: "tool", tool_call_id: `c${i}`, content: text },
    ]),
  ],
});

function exchange(step: number, body: unknown, reply = `reply ${step}`): RecordedExchange {
  return {
    type: "exchange",
    step,
    request: { method: "POST", url: "http://127.0.0.1/v1/messages", headers: {}, body },
    response: { status: 200, headers: { "content-type": "text/event-stream" }, chunks: [`data: ${reply}\n\n`] },
  };
}

const recording = (exchanges: RecordedExchange[]): Recording => ({ messages: [], sessions: [], exchanges });
const ask = (replay: RecordingReplay, body: unknown) => replay.fetch("http://127.0.0.1/v1/messages", { method: "POST", body: JSON.stringify(body) });

describe("fingerprint", () => {
  it("is what the run sent back after the model's first reply, on either wire, without the workspace's path, the time or the first message", () => {
    expect(fingerprint(anthropicBody([]), "/work/a")).toEqual([]);
    expect(fingerprint(anthropicBody(["read /work/a/x.txt: 1 line"]), "/work/a")).toEqual(["read <workspace>/x.txt: 1 line"]);
    expect(fingerprint(openaiBody(["one", "two"]), "/work/a")).toEqual(["one", "two"]);
  });
});

describe("RecordingReplay", () => {
  it("answers with the recorded bytes, and takes a run into another folder as the same run", async () => {
    const replay = new RecordingReplay(recording([exchange(1, anthropicBody([])), exchange(2, anthropicBody(["wrote /work/a/f"]))]), { live: "/work/b", recorded: "/work/a" });
    expect(await (await ask(replay, anthropicBody([]))).text()).toBe("data: reply 1\n\n");
    expect(await (await ask(replay, anthropicBody(["wrote /work/b/f"]))).text()).toBe("data: reply 2\n\n");
    expect(replay.outcome()).toBeUndefined();
  });

  it("says which step diverged and how, once, and fails every later request the same way", async () => {
    const replay = new RecordingReplay(recording([exchange(1, openaiBody([])), exchange(2, openaiBody(["exit 0"]))]), { live: "/b", recorded: "/a" });
    await ask(replay, openaiBody([]));
    await expect(ask(replay, openaiBody(["exit 1"]))).rejects.toThrow('replay diverged at step 2: result 1 differs: the run sent "exit 1", the recording has "exit 0" (recorded step 2).');
    await expect(ask(replay, openaiBody(["exit 0"]))).rejects.toThrow("replay diverged at step 2");
    expect(replay.outcome()).toMatch(/^replay diverged at step 2: /);
  });

  it("says when the run asks for more replies than were recorded, or ends before using them", async () => {
    const more = new RecordingReplay(recording([exchange(1, openaiBody([]))]), { live: "/b", recorded: "/a" });
    await ask(more, openaiBody([]));
    await expect(ask(more, openaiBody(["x"]))).rejects.toThrow("replay diverged at step 2: the run asked for reply 2, but the recording has only 1 reply.");
    const fewer = new RecordingReplay(recording([exchange(1, openaiBody([])), exchange(2, openaiBody(["x"]))]), { live: "/b", recorded: "/a" });
    await ask(fewer, openaiBody([]));
    expect(fewer.outcome()).toBe("replay diverged after step 1: the run ended, but the recording has 1 more reply (from its step 2).");
  });

  it("matches requests sent at the same time by what they carry, not by their order (sub-agents)", async () => {
    const replay = new RecordingReplay(
      recording([exchange(1, openaiBody(["left"]), "for left"), exchange(2, openaiBody(["right"]), "for right")]),
      { live: "/b", recorded: "/a" },
    );
    expect(await (await ask(replay, openaiBody(["right"]))).text()).toBe("data: for right\n\n");
    expect(await (await ask(replay, openaiBody(["left"]))).text()).toBe("data: for left\n\n");
  });

  it("reads a secret the recording took out as whatever the run has there", async () => {
    const replay = new RecordingReplay(recording([exchange(1, openaiBody(["token [REDACTED:github-token] (1 line)"]))]), { live: "/b", recorded: "/a" });
    expect((await ask(replay, openaiBody(["token ghp_realvalue (1 line)"]))).status).toBe(200);
    const strict = new RecordingReplay(recording([exchange(1, openaiBody(["token [REDACTED:github-token] (1 line)"]))]), { live: "/b", recorded: "/a" });
    await expect(ask(strict, openaiBody(["token ghp_realvalue (2 lines)"]))).rejects.toThrow("replay diverged at step 1");
  });

  it("serves a recorded error response as it came, and a retry of the same request gets the next one", async () => {
    const failed: RecordedExchange = { ...exchange(1, openaiBody([])), response: { status: 429, headers: { "content-type": "application/json" }, chunks: ['{"error":"slow down"}'] } };
    const replay = new RecordingReplay(recording([failed, exchange(2, openaiBody([]))]), { live: "/b", recorded: "/a" });
    const first = await ask(replay, openaiBody([]));
    expect([first.status, await first.text()]).toEqual([429, '{"error":"slow down"}']);
    expect(await (await ask(replay, openaiBody([]))).text()).toBe("data: reply 2\n\n");
  });
});
