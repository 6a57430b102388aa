import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../../../../../test/support/scripted-model-server.js";
import { createModel } from "../../model/providers.js";
import type { ApprovalRequest } from "../../runtime/host.js";
import type { AgentEvent } from "../../events/index.js";
import { Task } from "../../runtime/task.js";
import { allTools } from "../registry.js";

/**
 * Check-then-use: the person approves a call on a path inside the workspace, and while the
 * approval is pending something (a background job the model started, a file watcher) swaps that
 * path, or its folder, for a link elsewhere. The host's approve() callback does the swap, which
 * makes the race deterministic. The tools re-check at the moment of use and refuse.
 */

const SECRET = "SECRET=swap-race-marker";

let server: ScriptedModelServer | undefined;
let base: string;
let ws: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-race-")));
  ws = path.join(base, "ws");
  outside = path.join(base, "outside");
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(path.join(ws, ".cairnignore"), ".env\n");
  writeFileSync(path.join(ws, ".env"), `${SECRET}\n`);
  writeFileSync(path.join(ws, "a.txt"), "alpha\n");
  writeFileSync(path.join(ws, "b.txt"), "bravo\n");
  mkdirSync(path.join(ws, "sub"));
  writeFileSync(path.join(ws, "sub", "a.txt"), "sub alpha\n");
  writeFileSync(path.join(outside, "victim.txt"), "VICTIM\n");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(base, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const at = (relative: string) => path.join(ws, relative);

/** Replaces `relative` (a file or folder in the workspace) with a symlink to `target`, as one rename. */
function swapForLink(relative: string, target: string): void {
  const link = at(`${relative}.link`);
  symlinkSync(target, link);
  if (lstatSync(at(relative)).isDirectory()) renameSync(at(relative), at(`${relative}.moved`));
  renameSync(link, at(relative));
}

/** Runs one call whose approval swaps paths first; returns the call's result and everything the model was sent. */
async function approvedWithSwap(step: ScriptedTurn, swap: (request: ApprovalRequest) => void, autoApprove: Array<"read" | "edit"> = []): Promise<{ result: Extract<AgentEvent, { type: "tool_call_update"; content: string }>; sent: string; approvals: string[] }> {
  server = await startScriptedModelServer({ turns: [step, call("attempt_completion", { result: "done" })] });
  const approvals: string[] = [];
  const task = new Task({
    model: { main: createModel({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.url }) },
    tools: { list: allTools },
    workspace: { cwd: ws },
    policy: { autoApprove },
    host: {
      approve: async (request) => {
        approvals.push(request.category);
        swap(request);
        return { approved: true };
      },
    },
  });
  const events: AgentEvent[] = [];
  const run = task.run("do it");
  for (;;) {
    const next = await run.next();
    if (next.done) break;
    events.push(next.value);
  }
  const result = events.find((e): e is Extract<AgentEvent, { type: "tool_call_update"; content: string }> => e.type === "tool_call_update" && "content" in e);
  if (result === undefined) throw new Error("no tool result");
  return { result, sent: JSON.stringify(server.requests.map((r) => r.body)), approvals };
}

describe("a path swapped for a link between approval and use", () => {
  it("write_to_file approved for a.txt does not follow a.txt swapped for a link to outside", async () => {
    const { result, approvals } = await approvedWithSwap(call("write_to_file", { path: "a.txt", content: "pwned\n" }), () => swapForLink("a.txt", path.join(outside, "victim.txt")));
    expect(approvals).toEqual(["edit"]);
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/a\.txt leads outside the workspace/);
    expect(readFileSync(path.join(outside, "victim.txt"), "utf8")).toBe("VICTIM\n");
  });

  it("write_to_file approved for sub/a.txt does not land outside when sub/ is swapped for a link to outside", async () => {
    const { result } = await approvedWithSwap(call("write_to_file", { path: "sub/a.txt", content: "pwned\n" }), () => swapForLink("sub", outside));
    expect(result.is_error).toBe(true);
    expect(readdirSync(outside)).toEqual(["victim.txt"]);
  });

  it("replace_in_file approved for a.txt neither shows nor edits .env when a.txt is swapped for a link to it", async () => {
    // A SEARCH that does not match: had the edit run, its failure report would show the file's lines.
    const diff = "------- SEARCH\nguess\n=======\npwned\n+++++++ REPLACE";
    const { result, sent } = await approvedWithSwap(call("replace_in_file", { path: "a.txt", diff }), () => swapForLink("a.txt", ".env"));
    expect(result.content).toMatch(/a\.txt is blocked by \.cairnignore/);
    expect(sent).not.toContain("swap-race-marker");
    expect(readFileSync(at(".env"), "utf8")).toBe(`${SECRET}\n`);
  });

  it("read_file approved for b.txt does not read .env when b.txt is swapped for a link to it", async () => {
    // A read needs approval here, so there is a moment between approval and use.
    const { result, sent } = await approvedWithSwap(call("read_file", { path: "b.txt" }), () => swapForLink("b.txt", ".env"));
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/b\.txt is blocked by \.cairnignore/);
    expect(sent).not.toContain("swap-race-marker");
  });

  it("a swap to a link to another workspace file after the diff was shown writes nothing: that file is not the one approved", async () => {
    const swapped = await approvedWithSwap(call("write_to_file", { path: "a.txt", content: "through the link\n" }), () => swapForLink("a.txt", "b.txt"));
    expect(swapped.result.is_error).toBe(true);
    expect(swapped.result.content).toMatch(/a\.txt changed on disk after the person was shown this edit's diff/);
    expect(readFileSync(at("b.txt"), "utf8")).toBe("bravo\n");
  });

  it("positive controls: a link to another workspace file, in place when the diff was shown, is written through, and an approved outside write lands", async () => {
    swapForLink("a.txt", "b.txt");
    const inside = await approvedWithSwap(call("write_to_file", { path: "a.txt", content: "through the link\n" }), () => {});
    expect(inside.result.is_error).toBe(false);
    expect(readFileSync(at("b.txt"), "utf8")).toBe("through the link\n");
    await server?.close();

    symlinkSync(outside, at("out"));
    const external = await approvedWithSwap(call("write_to_file", { path: "out/new.txt", content: "approved outside\n" }), () => {});
    expect(external.approvals).toEqual(["edit-external"]);
    expect(external.result.is_error).toBe(false);
    expect(readFileSync(path.join(outside, "new.txt"), "utf8")).toBe("approved outside\n");
    unlinkSync(at("out"));
  });
});
