import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hookSandbox, on, type HookSandbox } from "./test-support.js";

let box: HookSandbox;

beforeEach(async () => {
  box = await hookSandbox();
});

afterEach(async () => {
  await box.cleanup();
});

/** A hook that copies its stdin to `file` in the workspace. */
const copyStdin = (file: string) => box.script(`copy-${file}.sh`, `cat > "$CAIRN_PROJECT_DIR/${file}"`);

describe("stdin", () => {
  it("carries Claude Code's field names for each event", async () => {
    await box.settings("project", {
      PreToolUse: on(await copyStdin("pre.json")),
      UserPromptSubmit: on(await copyStdin("prompt.json")),
      Stop: on(await copyStdin("stop.json")),
      SessionStart: on(await copyStdin("start.json")),
      SessionEnd: on(await copyStdin("end.json")),
      PreCompact: on(await copyStdin("compact.json")),
      Notification: on(await copyStdin("note.json")),
    });
    const { runner } = box.load();
    const session = { ...box.session, permissionMode: "yolo" as const, transcriptPath: "/home/me/.cairn/tasks/t1/conversation.jsonl" };
    await runner.preToolUse({ ...session, toolName: "execute_command", toolInput: { command: "npm test" }, toolUseId: "call_7" });
    await runner.userPromptSubmit({ ...session, prompt: "fix the tests" });
    await runner.stop({ ...session, continuations: 0 });
    await runner.sessionStart({ ...session, source: "resume" });
    await runner.sessionEnd({ ...session, reason: "other" });
    await runner.preCompact({ ...session, trigger: "auto" });
    await runner.notification({ ...session, message: "Cairn needs your approval to run a command", notificationType: "permission_prompt" });

    const read = async (file: string) => JSON.parse(await box.read(file)) as Record<string, unknown>;
    const base = { session_id: "session-1", transcript_path: session.transcriptPath, cwd: box.cwd, permission_mode: "yolo" };
    expect(await read("pre.json")).toEqual({ ...base, hook_event_name: "PreToolUse", tool_name: "execute_command", tool_input: { command: "npm test" }, tool_use_id: "call_7" });
    expect(await read("prompt.json")).toEqual({ ...base, hook_event_name: "UserPromptSubmit", prompt: "fix the tests" });
    expect(await read("stop.json")).toEqual({ ...base, hook_event_name: "Stop", stop_hook_active: false });
    expect(await read("start.json")).toEqual({ ...base, hook_event_name: "SessionStart", source: "resume" });
    expect(await read("end.json")).toEqual({ ...base, hook_event_name: "SessionEnd", reason: "other" });
    expect(await read("compact.json")).toEqual({ ...base, hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "" });
    expect(await read("note.json")).toEqual({
      ...base,
      hook_event_name: "Notification",
      message: "Cairn needs your approval to run a command",
      notification_type: "permission_prompt",
    });
  });

  it("sends an empty transcript_path when the task is not stored", async () => {
    await box.settings("project", { UserPromptSubmit: on(await copyStdin("prompt.json")) });
    await box.load().runner.userPromptSubmit({ ...box.session, prompt: "hi" });
    expect(JSON.parse(await box.read("prompt.json"))).toMatchObject({ transcript_path: "", permission_mode: "default" });
  });
});

describe("UserPromptSubmit", () => {
  it("adds plain stdout and JSON additionalContext as context, in order", async () => {
    await box.settings("global", { UserPromptSubmit: on(await box.script("branch.sh", "cat > /dev/null; echo 'Current branch: main'")) });
    await box.settings("project", {
      UserPromptSubmit: on(await box.script("ticket.sh", `cat > /dev/null; echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Ticket ABC-1 is open"}}'`)),
    });
    const outcome = await box.load().runner.userPromptSubmit({ ...box.session, prompt: "continue" });
    expect(outcome).toEqual({ block: false, additionalContext: "Current branch: main\n\nTicket ABC-1 is open", notices: [] });
  });

  it("blocks the prompt on exit 2 with stderr as the reason", async () => {
    await box.settings("project", {
      UserPromptSubmit: on(await box.script("secrets.sh", `grep -q "password" && { echo "The prompt contains a password; remove it." >&2; exit 2; }; exit 0`)),
    });
    const { runner } = box.load();
    expect(await runner.userPromptSubmit({ ...box.session, prompt: "my password is hunter2" })).toEqual({
      block: true,
      reason: "The prompt contains a password; remove it.",
      notices: [],
    });
    expect((await runner.userPromptSubmit({ ...box.session, prompt: "hello" })).block).toBe(false);
  });

  it("blocks on continue: false too, with stopReason as the reason", async () => {
    await box.settings("project", { UserPromptSubmit: on(await box.script("freeze.sh", `echo '{"continue": false, "stopReason": "Repository frozen for release."}'`)) });
    const outcome = await box.load().runner.userPromptSubmit({ ...box.session, prompt: "go" });
    expect(outcome).toMatchObject({ block: true, reason: "Repository frozen for release.", endRun: "Repository frozen for release." });
  });
});

describe("Stop", () => {
  /** A Stop hook that insists while tests.txt is missing, and records stop_hook_active each time. */
  async function insistingStopHook() {
    const body = `
input=$(cat)
case "$input" in *'"stop_hook_active":true'*) echo active >> "$CAIRN_PROJECT_DIR/log.txt";; *) echo first >> "$CAIRN_PROJECT_DIR/log.txt";; esac
[ -f "$CAIRN_PROJECT_DIR/tests.txt" ] && exit 0
echo "Run the tests before you finish." >&2
exit 2`;
    await box.settings("project", { Stop: on(await box.script("stop.sh", body)) });
    return box.load({ runner: { maxStopContinuations: 2 } }).runner;
  }

  it("keeps the agent going with stderr as the reason, with stop_hook_active after the first time", async () => {
    const runner = await insistingStopHook();
    expect(await runner.stop({ ...box.session, continuations: 0 })).toEqual({ block: true, reason: "Run the tests before you finish.", notices: [] });
    expect((await runner.stop({ ...box.session, continuations: 1 })).block).toBe(true);
    expect(await box.read("log.txt")).toBe("first\nactive\n");
  });

  it("lets the run end once the cap of forced continuations in a row is reached", async () => {
    const runner = await insistingStopHook();
    const outcome = await runner.stop({ ...box.session, continuations: 2 });
    expect(outcome.block).toBe(false);
    expect(outcome.reason).toBeUndefined();
    expect(outcome.notices).toEqual([{ level: "warning", message: expect.stringContaining("after 2 times in a row; the run ends anyway. Its reason: Run the tests before you finish.") }]);
  });

  it("lets the agent stop when the hook is satisfied", async () => {
    const runner = await insistingStopHook();
    await writeFile(path.join(box.cwd, "tests.txt"), "ran");
    expect(await runner.stop({ ...box.session, continuations: 0 })).toEqual({ block: false, notices: [] });
  });

  it("keeps going on decision block from JSON", async () => {
    await box.settings("project", { Stop: on(await box.script("json.sh", `echo '{"decision": "block", "reason": "Update the changelog first."}'`)) });
    expect(await box.load().runner.stop({ ...box.session, continuations: 0 })).toEqual({ block: true, reason: "Update the changelog first.", notices: [] });
  });
});

describe("SessionStart", () => {
  it("adds stdout as context, only for the sources its matcher names", async () => {
    await box.settings("project", {
      SessionStart: [
        ...on(await box.script("fresh.sh", "echo 'Read TODO.md first.'"), { matcher: "startup" }),
        ...on(await box.script("resumed.sh", `echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "Welcome back."}}'`), { matcher: "resume" }),
      ],
    });
    const { runner } = box.load();
    expect(await runner.sessionStart({ ...box.session, source: "startup" })).toEqual({ additionalContext: "Read TODO.md first.", notices: [] });
    expect(await runner.sessionStart({ ...box.session, source: "resume" })).toEqual({ additionalContext: "Welcome back.", notices: [] });
  });
});

describe("events that cannot block", () => {
  it("show an exit-2 stderr as a notice and decide nothing", async () => {
    const refuse = await box.script("refuse.sh", "echo 'disk almost full' >&2; exit 2");
    await box.settings("project", { PreCompact: on(refuse, { matcher: "manual" }), Notification: on(refuse), SessionEnd: on(refuse) });
    const { runner } = box.load();
    const compact = await runner.preCompact({ ...box.session, trigger: "manual" });
    expect(compact).toEqual({ notices: [{ level: "warning", message: expect.stringContaining("exited with 2: disk almost full. PreCompact cannot be blocked") }] });
    expect(await runner.preCompact({ ...box.session, trigger: "auto" })).toEqual({ notices: [] });
    expect((await runner.notification({ ...box.session, message: "waiting" })).notices).toHaveLength(1);
    expect((await runner.sessionEnd({ ...box.session, reason: "other" })).notices).toHaveLength(1);
  });

  it("pass a systemMessage on to the person as an info notice", async () => {
    await box.settings("project", { Notification: on(await box.script("say.sh", `echo '{"systemMessage": "Sent to Slack."}'`)) });
    expect(await box.load().runner.notification({ ...box.session, message: "done" })).toEqual({
      notices: [{ level: "info", message: `Notification hook "./hooks/say.sh": Sent to Slack.` }],
    });
  });
});
