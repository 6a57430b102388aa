import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../test/support/scripted-model-server.js";
import type { ModelRequest } from "../model/types.js";
import { createModel } from "../model/providers.js";
import { nativeProtocolWith } from "../protocol/native.js";
import { xmlProtocol } from "../protocol/index.js";
import { offeredTools } from "../tools/brief-tools.js";
import { allTools } from "../tools/registry.js";
import { RequestTools } from "./request-tools.js";
import { Task } from "./task.js";

describe("RequestTools", () => {
  const protocol = nativeProtocolWith(false);
  const offer = () => offeredTools(allTools, new Set());

  it("gives what the protocol gives, and the same conversion while the offer is the same list", () => {
    const cache = new RequestTools();
    const first = cache.of(protocol, offer());
    expect(first).toEqual(protocol.requestTools(offer()));
    // A new array of the same tools (each turn builds its offer anew) is the same offer.
    expect(cache.of(protocol, offer())).toBe(first);
  });

  it("converts again when the offer changes: a tool called (offered in full), a tool fewer, another protocol", () => {
    const cache = new RequestTools();
    const brief = cache.of(protocol, offer());
    const browser = (specs: typeof brief) => specs?.find((s) => s.name === "browser_action");
    const full = cache.of(protocol, offeredTools(allTools, new Set(["browser_action"])));
    expect(full).not.toBe(brief);
    expect(browser(full)).toEqual(protocol.requestTools(allTools)?.find((s) => s.name === "browser_action"));
    expect(browser(full)).not.toEqual(browser(brief));
    expect(cache.of(protocol, offer().slice(1))).toHaveLength(allTools.length - 1);
    const withProgress = nativeProtocolWith(true);
    expect(cache.of(withProgress, offer())).toEqual(withProgress.requestTools(offer()));
    expect(cache.of(xmlProtocol, offer())).toBeUndefined();
  });
});

describe("the tools a task sends, converted once", () => {
  let cwd: string;
  let server: ScriptedModelServer | undefined;
  beforeEach(() => {
    cwd = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-request-tools-")));
  });
  afterEach(async () => {
    await server?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

  it("a beforeModel hook that changes the tools in place changes that request only; the next turn sends them as converted", async () => {
    server = await startScriptedModelServer({ turns: [call("list_files", { path: "." }), call("attempt_completion", { result: "done" })] });
    let hooked = 0;
    const task = new Task({
      model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }) },
      tools: { list: allTools },
      workspace: { cwd },
      hooks: {
        loop: {
          beforeModel: (request: ModelRequest) => {
            if (hooked++ > 0) return;
            request.tools?.splice(1);
            request.tools![0]!.description = "changed by the hook";
          },
        },
      },
    });
    const generator = task.run("list the files");
    for (let next = await generator.next(); !next.done; next = await generator.next());
    const sent = server.requests.map((r) => r.body.tools as Array<{ name: string; description: string }>);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toHaveLength(1);
    expect(sent[0]![0]!.description).toBe("changed by the hook");
    expect(sent[1]!.length).toBeGreaterThan(5);
    expect(sent[1]!.map((t) => t.description)).not.toContain("changed by the hook");
  });
});
