import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PreToolUseInput } from "./events.js";
import { hookSandbox, on, type HookSandbox } from "./test-support.js";

let box: HookSandbox;

beforeEach(async () => {
  box = await hookSandbox();
});

afterEach(async () => {
  await box.cleanup();
});

const call = (toolName = "write_to_file", toolInput: Record<string, unknown> = { path: "a.txt", content: "hi" }): PreToolUseInput => ({
  ...box.session,
  toolName,
  toolInput,
  toolUseId: "toolu_1",
});

const json = (value: unknown) => `cat > /dev/null; printf '%s' '${JSON.stringify(value)}'`;

describe("PreToolUse", () => {
  it("lets the call through without a decision when the hook exits 0 silently", async () => {
    await box.settings("project", { PreToolUse: on(await box.script("ok.sh", "cat > /dev/null; exit 0")) });
    const outcome = await box.load().runner.preToolUse(call());
    expect(outcome).toEqual({ notices: [] });
  });

  it("denies with the hook's stderr as the reason on exit 2", async () => {
    await box.settings("project", {
      PreToolUse: on(await box.script("guard.sh", `echo "Editing a.txt is forbidden: it is generated." >&2; exit 2`)),
    });
    const outcome = await box.load().runner.preToolUse(call());
    expect(outcome.decision).toBe("deny");
    expect(outcome.reason).toBe("Editing a.txt is forbidden: it is generated.");
  });

  it.each(["deny", "allow", "ask"] as const)("takes permissionDecision %s from JSON on stdout", async (decision) => {
    const reply = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, permissionDecisionReason: `said ${decision}` } };
    await box.settings("project", { PreToolUse: on(await box.script("decide.sh", json(reply))) });
    const outcome = await box.load().runner.preToolUse(call());
    expect(outcome.decision).toBe(decision);
    expect(outcome.reason).toBe(`said ${decision}`);
  });

  it("reads the older decision block/approve, additionalContext and updatedInput", async () => {
    await box.settings("project", {
      PreToolUse: [
        ...on(await box.script("approve.sh", json({ decision: "approve", hookSpecificOutput: { additionalContext: "approved by policy", updatedInput: { path: "b.txt", content: "hi" } } })), { matcher: "write_to_file" }),
        ...on(await box.script("block.sh", json({ decision: "block", reason: "no shell today" })), { matcher: "execute_command" }),
      ],
    });
    const { runner } = box.load();
    const write = await runner.preToolUse(call());
    expect(write.decision).toBe("allow");
    expect(write.additionalContext).toBe("approved by policy");
    expect(write.updatedInput).toEqual({ path: "b.txt", content: "hi" });
    const command = await runner.preToolUse(call("execute_command", { command: "ls" }));
    expect(command).toMatchObject({ decision: "deny", reason: "no shell today" });
  });

  it("runs a hook only for the tools its matcher names", async () => {
    await box.settings("project", {
      PreToolUse: [
        ...on(await box.script("edits.sh", "echo no edits >&2; exit 2"), { matcher: "write_to_file|replace_in_file" }),
        ...on(await box.script("mcp.sh", "echo no github >&2; exit 2"), { matcher: "mcp__github__.*" }),
      ],
    });
    const { runner } = box.load();
    expect((await runner.preToolUse(call("replace_in_file"))).reason).toBe("no edits");
    expect((await runner.preToolUse(call("mcp__github__create_issue"))).reason).toBe("no github");
    // A plain name matches exactly, not as a part of a longer name.
    expect(await runner.preToolUse(call("write_to_file_v2"))).toEqual({ notices: [] });
    expect(await runner.preToolUse(call("read_file"))).toEqual({ notices: [] });
    expect(runner.has("PreToolUse", "read_file")).toBe(false);
    expect(runner.has("PreToolUse", "write_to_file")).toBe(true);
  });

  it("runs matching hooks in parallel; a deny from any wins over allow and ask, contexts join", async () => {
    // Each hook waits (up to 3 s) until all three have started: run one after another, none would see the others.
    const together = (name: string, body: string) =>
      box.script(
        name,
        `cat > /dev/null; touch "started-${name}"
for i in $(seq 60); do [ "$(ls started-* | wc -l)" -ge 3 ] && break; sleep 0.05; done
[ "$(ls started-* | wc -l)" -ge 3 ] && echo together >> seen.txt || echo alone >> seen.txt
${body}`,
      );
    await box.settings("project", {
      PreToolUse: [
        ...on(await together("allow.sh", json({ hookSpecificOutput: { permissionDecision: "allow", additionalContext: "one" } }))),
        ...on(await together("ask.sh", json({ hookSpecificOutput: { permissionDecision: "ask", additionalContext: "two" } }))),
        ...on(await together("deny.sh", "echo denied by the third >&2; exit 2")),
      ],
    });
    const outcome = await box.load().runner.preToolUse(call());
    expect(await box.read("seen.txt")).toBe("together\ntogether\ntogether\n");
    expect(outcome).toEqual({ decision: "deny", reason: "denied by the third", additionalContext: "one\n\ntwo", notices: [] });
  });

  it("reports a hook that fails with another exit code as a notice and ignores it", async () => {
    await box.settings("project", {
      PreToolUse: [...on(await box.script("broken.sh", "echo 'jq: command not found' >&2; exit 1")), ...on("./hooks/missing.sh")],
    });
    const outcome = await box.load().runner.preToolUse(call());
    expect(outcome.decision).toBeUndefined();
    expect(outcome.notices).toHaveLength(2);
    expect(outcome.notices[0]).toEqual({ level: "warning", message: expect.stringContaining("failed with exit code 1: jq: command not found") });
    expect(outcome.notices[1]?.message).toContain("exit code 127 (command not found");
  });

  it("ends the run and denies the call on continue: false", async () => {
    await box.settings("project", { PreToolUse: on(await box.script("halt.sh", json({ continue: false, stopReason: "Budget freeze: stop now." }))) });
    const outcome = await box.load().runner.preToolUse(call());
    expect(outcome).toMatchObject({ decision: "deny", reason: "Budget freeze: stop now.", endRun: "Budget freeze: stop now." });
  });

  it("ignores stdout that is not a JSON object, and says so for a decision it does not know", async () => {
    await box.settings("project", {
      PreToolUse: [...on(await box.script("chatty.sh", "echo checking... all fine")), ...on(await box.script("odd.sh", json({ hookSpecificOutput: { permissionDecision: "maybe" } })))],
    });
    const outcome = await box.load().runner.preToolUse(call());
    expect(outcome.decision).toBeUndefined();
    expect(outcome.notices.map((n) => n.message)).toEqual([expect.stringContaining(`permissionDecision "maybe"`)]);
  });

  it("runs an identical command once even when two groups list it", async () => {
    const counter = await box.script("count.sh", `echo x >> "$CAIRN_PROJECT_DIR/count.txt"`);
    await box.settings("global", { PreToolUse: on(counter) });
    await box.settings("project", { PreToolUse: on(counter, { matcher: "write_to_file" }) });
    await box.load().runner.preToolUse(call());
    expect(await box.read("count.txt")).toBe("x\n");
  });
});

describe("PostToolUse", () => {
  it("gives the hook the result and shows its exit-2 reason to the model", async () => {
    await box.settings("project", {
      PostToolUse: on(await box.script("lint.sh", `cat > "$CAIRN_PROJECT_DIR/post.json"; echo "lint: a.txt:1 trailing space" >&2; exit 2`), { matcher: "write_to_file" }),
    });
    const outcome = await box.load().runner.postToolUse({ ...call(), toolResponse: { content: "Wrote a.txt", isError: false } });
    expect(outcome).toEqual({ block: true, reason: "lint: a.txt:1 trailing space", notices: [] });
    const stdin = JSON.parse(await box.read("post.json"));
    expect(stdin).toMatchObject({ hook_event_name: "PostToolUse", tool_name: "write_to_file", tool_use_id: "toolu_1", tool_response: { content: "Wrote a.txt", is_error: false } });
  });

  it("passes additionalContext from JSON, and no context from plain stdout", async () => {
    await box.settings("project", {
      PostToolUse: [...on(await box.script("ctx.sh", json({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "formatted with prettier" } }))), ...on(await box.script("plain.sh", "echo plain"))],
    });
    const outcome = await box.load().runner.postToolUse({ ...call(), toolResponse: { content: "ok", isError: false } });
    expect(outcome).toEqual({ block: false, additionalContext: "formatted with prettier", notices: [] });
  });
});
