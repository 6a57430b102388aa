import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../../../../test/support/scripted-model-server.js";
import { createModel } from "../model/providers.js";
import type { Message } from "../model/types.js";
import { nativeProtocol } from "../protocol/native.js";
import { xmlProtocol } from "../protocol/xml/xml-protocol.js";
import { toProviderPrompt } from "../model/to-provider-prompt.js";
import { compactConversation } from "./compact.js";
import { replaceDuplicateReads } from "./duplicate-reads.js";
import { fitContext } from "./fit-context.js";
import { countMessagesTokens, countTextTokens } from "./token-count.js";
import { truncateMiddle } from "./truncate.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const big = (label: string, kb: number) => `${label}\n${"lorem ipsum dolor sit amet ".repeat(kb * 40)}`;

/** A native conversation: the task, then `n` rounds of read_file of `path(i)` with its result. */
function nativeConversation(n: number, path: (i: number) => string, size = 1): Message[] {
  const messages: Message[] = [user("The task: refactor the parser.")];
  for (let i = 0; i < n; i++) {
    messages.push({ role: "assistant", content: [{ type: "tool-call", id: `c${i}`, name: "read_file", input: { path: path(i) } }] });
    messages.push(nativeProtocol.resultsMessage([{ call: { id: `c${i}`, name: "read_file", input: { path: path(i) } }, result: { content: big(`content ${i}`, size) } }], []));
  }
  return messages;
}

/** Every tool call has its result in the next message, and every result answers a call. */
function pairsValid(messages: Message[]): boolean {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "assistant") {
      const ids = m.content.flatMap((p) => (p.type === "tool-call" ? [p.id] : []));
      const next = messages[i + 1];
      const answered = next?.role === "user" ? next.content.flatMap((p) => (p.type === "tool-result" ? [p.toolCallId] : [])) : [];
      if (!ids.every((id) => answered.includes(id))) return false;
    } else {
      const prev = messages[i - 1];
      const called = prev?.role === "assistant" ? prev.content.flatMap((p) => (p.type === "tool-call" ? [p.id] : [])) : [];
      const results = m.content.flatMap((p) => (p.type === "tool-result" ? [p.toolCallId] : []));
      if (!results.every((id) => called.includes(id))) return false;
    }
  }
  return true;
}

describe("token counting", () => {
  it("counts text with the o200k encoder", async () => {
    expect(await countTextTokens("")).toBe(0);
    expect(await countTextTokens("hello world")).toBe(2);
  });
});

describe("duplicate reads", () => {
  it("native: keeps the newest read of each file and replaces older ones with a note", () => {
    const messages = nativeConversation(4, (i) => (i % 2 === 0 ? "a.ts" : "b.ts"));
    const { messages: out, replaced } = replaceDuplicateReads(messages);
    expect(replaced).toBe(2);
    const text = JSON.stringify(out);
    expect(text).not.toContain("content 0");
    expect(text).not.toContain("content 1");
    expect(text).toContain("content 2");
    expect(text).toContain("content 3");
    expect(text).toContain("An earlier read of a.ts was removed");
    expect(pairsValid(out)).toBe(true);
    expect(replaceDuplicateReads(out).replaced).toBe(0);
  });

  it("xml: recognises read results by their label", () => {
    const result = (i: number) => xmlProtocol.resultsMessage([{ call: { id: `x${i}`, name: "read_file", input: { path: "a.ts" } }, result: { content: big(`xml content ${i}`, 1) } }], []);
    const messages: Message[] = [user("task"), { role: "assistant", content: [{ type: "text", text: "<read_file><path>a.ts</path></read_file>" }] }, result(0), { role: "assistant", content: [{ type: "text", text: "again" }] }, result(1)];
    const { messages: out, replaced } = replaceDuplicateReads(messages);
    expect(replaced).toBe(1);
    expect(JSON.stringify(out)).not.toContain("xml content 0");
    expect(JSON.stringify(out)).toContain("xml content 1");
  });

  it("different line ranges of a file are different reads", () => {
    const messages = nativeConversation(2, () => "a.ts");
    (messages[3] as Extract<Message, { role: "assistant" }>).content[0] = { type: "tool-call", id: "c1", name: "read_file", input: { path: "a.ts", start_line: 10 } };
    expect(replaceDuplicateReads(messages).replaced).toBe(0);
  });
});

describe("truncateMiddle", () => {
  it("drops the oldest rounds after the first exchange, keeps pairs valid and the task, and says so", async () => {
    const messages = nativeConversation(30, (i) => `f${i}.ts`, 2);
    const before = await countMessagesTokens(messages);
    const { messages: out, dropped } = await truncateMiddle(messages, Math.floor(before / 3));
    expect(dropped).toBeGreaterThan(0);
    expect(await countMessagesTokens(out)).toBeLessThanOrEqual(Math.floor(before / 3));
    expect(out[0]).toEqual(messages[0]);
    expect(JSON.stringify(out)).toContain("content 0");
    expect(JSON.stringify(out)).toContain("content 29");
    expect(JSON.stringify(out)).toContain("earlier messages of this conversation were removed");
    expect(pairsValid(out)).toBe(true);
    // Both wire formats accept the result: alternation as the providers see it.
    const roles = toProviderPrompt("s", out, true).map((m) => m.role);
    expect(roles.slice(0, 4)).toEqual(["system", "user", "assistant", "tool"]);
  });

  it("leaves a short conversation alone", async () => {
    const messages = nativeConversation(1, () => "a.ts");
    expect((await truncateMiddle(messages, 10)).dropped).toBe(0);
  });
});

describe("compaction", () => {
  let server: ScriptedModelServer;
  afterEach(async () => server?.close());

  it("keeps the task word for word, replaces the middle with the model's summary, and keeps recent rounds", async () => {
    server = await startScriptedModelServer({ turns: [{ content: [{ type: "text", text: "1. Task: refactor the parser.\n3. Files: f0.ts … f19.ts read." }] }] });
    const model = createModel({ provider: "anthropic", model: "claude-haiku-4-5", apiKey: "k", baseUrl: server.url });
    const messages = nativeConversation(20, (i) => `f${i}.ts`, 1);
    const result = await compactConversation(messages, model, 3_000, new AbortController().signal);
    expect(result).toBeDefined();
    const out = result!.messages;
    expect(JSON.stringify(out[0])).toContain("The task: refactor the parser.");
    expect(JSON.stringify(out[0])).toContain("Summary of the work so far");
    expect(JSON.stringify(out[0])).toContain("f0.ts … f19.ts read");
    expect(out.length).toBeLessThan(messages.length);
    expect(JSON.stringify(out)).toContain("content 19");
    expect(out[1]!.role).toBe("assistant");
    expect(pairsValid(out)).toBe(true);
    // The summariser saw the whole conversation and the instructions.
    const request = server.requests[0]!.body as { system: unknown; messages: unknown[] };
    expect(JSON.stringify(request.system)).toContain("working memory of a coding agent");
    expect(JSON.stringify(request.messages)).toContain("content 0");
  });

  it("fitContext does nothing under the budget, and shrinks below it when over", async () => {
    server = await startScriptedModelServer({ responder: () => ({ content: [{ type: "text", text: "summary" }] }) });
    const model = createModel({ provider: "anthropic", model: "tiny", apiKey: "k", baseUrl: server.url, info: { contextWindow: 8_000, maxOutputTokens: 1_000 } });
    const small = nativeConversation(1, () => "a.ts");
    const untouched = await fitContext({ messages: small, fixedText: "system", model, strategy: "auto", signal: new AbortController().signal });
    expect(untouched.actions).toEqual([]);
    const large = nativeConversation(40, (i) => `f${i}.ts`, 1);
    for (const strategy of ["auto", "truncate"] as const) {
      const fitted = await fitContext({ messages: large, fixedText: "system", model, strategy, signal: new AbortController().signal });
      expect(fitted.tokensBefore).toBeGreaterThan(7_000);
      expect(fitted.tokensAfter).toBeLessThanOrEqual(7_000);
      expect(fitted.actions.map((a) => a.kind)).toContain(strategy === "auto" ? "compact" : "truncate");
      expect(pairsValid(fitted.messages)).toBe(true);
    }
    const off = await fitContext({ messages: large, fixedText: "system", model, strategy: "off", signal: new AbortController().signal });
    expect(off.actions).toEqual([]);
  });

  it("trusts the provider's own count when it is higher than ours", async () => {
    server = await startScriptedModelServer({ responder: () => ({ content: [{ type: "text", text: "summary" }] }) });
    const model = createModel({ provider: "anthropic", model: "tiny", apiKey: "k", baseUrl: server.url, info: { contextWindow: 8_000, maxOutputTokens: 1_000 } });
    const messages = nativeConversation(6, (i) => `f${i}.ts`, 1);
    const ours = await fitContext({ messages, fixedText: "s", model, strategy: "truncate", signal: new AbortController().signal });
    expect(ours.actions).toEqual([]);
    const theirs = await fitContext({ messages, fixedText: "s", model, strategy: "truncate", signal: new AbortController().signal, reportedTokens: 7_500 });
    expect(theirs.tokensBefore).toBe(7_500);
    expect(theirs.actions.map((a) => a.kind)).toContain("truncate");
  });
});
