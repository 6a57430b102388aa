import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ParsedCall } from "../protocol/types.js";
import { composeHooks } from "./compose-hooks.js";
import type { Hooks } from "./loop-hooks.js";
import { shellHooks } from "./shell-hooks.js";
import { hookSandbox, on, type HookSandbox } from "./test-support.js";

let box: HookSandbox;

beforeEach(async () => {
  box = await hookSandbox();
});

afterEach(async () => {
  await box.cleanup();
});

const ctx = { signal: new AbortController().signal };
const call = (input: Record<string, unknown> = { path: "a.txt", content: "hi" }): ParsedCall => ({ id: "toolu_1", name: "write_to_file", input });

describe("composeHooks", () => {
  it("runs hooks in list order, each seeing the input the one before it wrote", async () => {
    const seen: string[] = [];
    const tag = (name: string): Hooks => ({
      beforeTool: (c) => {
        seen.push(`${name}:${String(c.input.content)}`);
        return { input: { ...c.input, content: `${String(c.input.content)}+${name}` } };
      },
    });
    const verdict = await composeHooks([tag("a"), tag("b"), tag("c")]).beforeTool?.(call(), ctx);
    expect(seen).toEqual(["a:hi", "b:hi+a", "c:hi+a+b"]);
    expect(verdict).toEqual({ input: { path: "a.txt", content: "hi+a+b+c" } });
  });

  it("stops at the first deny: later hooks never run, and an earlier rewrite does not survive it", async () => {
    const ran: string[] = [];
    const verdict = await composeHooks([
      { beforeTool: (c) => (ran.push("rewrite"), { input: { ...c.input, path: "b.txt" } }) },
      { beforeTool: () => (ran.push("deny 1"), { deny: "first" }) },
      { beforeTool: () => (ran.push("deny 2"), { deny: "second" }) },
    ]).beforeTool?.(call(), ctx);
    expect(ran).toEqual(["rewrite", "deny 1"]);
    expect(verdict).toEqual({ deny: "first" });
  });

  it("chains results after a call and joins contexts in order; ask beats an earlier allow", async () => {
    const composed = composeHooks([
      { beforeTool: () => ({ decision: "allow", context: "one" }) },
      { beforeTool: () => ({ decision: "ask", context: "two" }) },
      { afterTool: (_c, r) => ({ ...r, content: `${String(r.content)} [first]` }) },
      { afterTool: (_c, r) => ({ result: { ...r, content: `${String(r.content)} [second]` }, context: "after" }) },
    ]);
    expect(await composeHooks([composed]).beforeTool?.(call(), ctx)).toEqual({ decision: "ask", context: "one\ntwo" });
    expect(await composed.afterTool?.(call(), { content: "done" }, ctx)).toEqual({ result: { content: "done [first] [second]" }, context: "after" });
  });

  it("leaves a point undefined when no hook in the list handles it", () => {
    const composed = composeHooks([{ beforeModel: (r) => r }, undefined, { onEvent: () => undefined }]);
    expect(composed.beforeTool).toBeUndefined();
    expect(composed.onStop).toBeUndefined();
    expect(composed.beforeModel).toBeTypeOf("function");
  });

  it("runs a programmatic hook and the shell hooks of settings in one list: the shell hook reads the rewritten input", async () => {
    // The real PreToolUse contract: the script logs what it read on stdin and adds context; exit 0.
    const script = await box.script("pre.sh", `cat > hooks/stdin.json; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"checked by the shell hook"}}'`);
    await box.settings("project", { PreToolUse: on(script) });
    const shell = shellHooks(box.load().runner, () => box.session);
    const programmatic: Hooks = { beforeTool: (c) => ({ input: { ...c.input, content: "rewritten by the program" }, context: "from the program" }) };

    const verdict = await composeHooks([programmatic, shell]).beforeTool?.(call(), ctx);
    expect(verdict).toEqual({ input: { path: "a.txt", content: "rewritten by the program" }, context: "from the program\nchecked by the shell hook" });
    const stdin = JSON.parse(await box.read("hooks/stdin.json")) as Record<string, unknown>;
    expect(stdin).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "write_to_file", tool_input: { content: "rewritten by the program" } });
  });

  it("a shell hook's deny (exit 2) wins over a programmatic allow before it, with the shell's own message and notices", async () => {
    const script = await box.script("deny.sh", `cat > /dev/null; echo "generated file" >&2; exit 2`);
    await box.settings("project", { PreToolUse: on(script) });
    const shell = shellHooks(box.load().runner, () => box.session);
    const verdict = await composeHooks([{ beforeTool: () => ({ decision: "allow" }) }, shell]).beforeTool?.(call(), ctx);
    expect(verdict).toMatchObject({ deny: "generated file", message: "Blocked by a PreToolUse hook: generated file" });
  });
});
