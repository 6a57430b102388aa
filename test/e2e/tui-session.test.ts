import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { sleep, TuiTerminal } from "../support/tui-terminal.js";
import { useTuiFixture } from "../support/tui-fixture.js";

/**
 * A whole session in the interactive `cairn`, in a real terminal (tmux), against a provider that
 * numbers its tool calls per response: every call arrives as `call_0`, as Fireworks, Azure OpenAI,
 * OpenRouter routes and local servers send them. Each call still gets a card of its own, live and
 * when the task is reopened; the new_task hand-off starts the fresh task and that task resumes.
 */

const fx = useTuiFixture("tui-session");

/** A turn with one native call, its id `call_0` whatever the turn. */
const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", id: "call_0", name, input }] });

async function open(turns: ScriptedTurn[], args: string[] = []): Promise<TuiTerminal> {
  fx.server = await startScriptedModelServer({ turns });
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
  fx.terminal = new TuiTerminal(cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, CAIRN_API_KEY: "k" }), fx.home.dir, fx.workspace.dir);
  fx.terminal.launch([...provider(), ...args]);
  return fx.terminal;
}

const provider = () => ["--provider", "openai-compatible", "--model", "scripted-model", "--base-url", `${fx.server!.url}/v1`];

/** Leaves the session (Esc twice) and returns the id of the task it saved. */
async function leave(t: TuiTerminal): Promise<string> {
  await t.press("Escape", "Escape");
  const left = await t.waitFor("[cairn exited 0]");
  const id = /Task (\S+) is saved/.exec(left)?.[1];
  expect(id).toBeDefined();
  return id!;
}

/** The latest session's part of the screen, from its banner on. */
const lastSession = (screen: string) => screen.slice(screen.lastIndexOf("cairn · openai-compatible/"));

/** Where each of `texts` is in `screen`, checking that each is there. */
function positions(screen: string, texts: Array<string | RegExp>): number[] {
  return texts.map((text) => {
    const at = typeof text === "string" ? screen.indexOf(text) : screen.search(text);
    expect(at, `${String(text)} on the screen:\n${screen}`).toBeGreaterThan(-1);
    return at;
  });
}

type Meta = { id: string; title: string; parent?: { id: string; relation: string }; status: string };
const storedTasks = (): Meta[] =>
  readdirSync(path.join(fx.home.dir, "tasks"))
    .filter((name) => name !== "index.json")
    .map((id) => JSON.parse(readFileSync(path.join(fx.home.dir, "tasks", id, "metadata.json"), "utf8")) as Meta);

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}.`);
    await sleep(50);
  }
}

const requestText = (index: number) => JSON.stringify(fx.server!.requests[index]?.body.messages ?? null);

describe("a provider that reuses call_0 every turn, in the terminal", () => {
  it("one card per call with its own content: an edit, a denied write, a command; and again when the task is reopened", { timeout: 120_000 }, async () => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), "alpha\nbeta\n");
    const t = await open(
      [
        call("replace_in_file", { path: "notes.txt", diff: "------- SEARCH\nbeta\n=======\nBETA-EDITED\n+++++++ REPLACE" }),
        call("write_to_file", { path: "secret.txt", content: "DENIED-CONTENT\n" }),
        call("execute_command", { command: "echo COMMAND-RAN-MARK", requires_approval: true }),
        call("attempt_completion", { result: "All three handled" }),
      ],
      ["Tidy the notes"],
    );
    await t.waitFor("Apply this edit? notes.txt");
    await t.press("y");
    await t.waitFor("Apply this new file? secret.txt");
    await t.press("n");
    await t.waitFor("Run this command?");
    await t.press("y");
    const live = lastSession(await t.waitFor("✓ All three handled"));
    expect(readFileSync(path.join(fx.workspace.dir, "notes.txt"), "utf8")).toBe("alpha\nBETA-EDITED\n");
    expect(existsSync(path.join(fx.workspace.dir, "secret.txt"))).toBe(false);
    // Each card says its own call: the edit's diff (shown with its approval), the write denied, the command's output.
    const cards = [/✓ edit notes\.txt \(\+1 −1\)/, /⊘ write secret\.txt \(new file, 1 line\)\n\s+denied by you/, /✓ \$ echo COMMAND-RAN-MARK · exit 0\n\s+COMMAND-RAN-MARK\n/];
    const order = positions(live, [/2 \+ BETA-EDITED/, ...cards, "✓ All three handled"]);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // No card is titled by another call's name (the last one's, as a reused id would make it).
    expect(live).not.toMatch(/attempt_completion/);

    const id = await leave(t);
    t.launch(provider());
    await t.waitFor("Resume a recent task, or start a new one");
    await t.press("Down", "Enter");
    const replay = lastSession(await t.waitFor(`Resumed task ${id}`));
    // The person's message first, as it was sent, then each call's card.
    const replayed = positions(replay, ["❯ Tidy the notes", ...cards]);
    expect(replayed).toEqual([...replayed].sort((a, b) => a - b));
    expect(replay).not.toMatch(/attempt_completion/);
    // Each card once: a reused id would show one call's card under another's.
    expect(replay.match(/edit notes\.txt/g)).toHaveLength(1);
    expect(replay.match(/write secret\.txt/g)).toHaveLength(1);
  });
});

describe("new_task in the terminal", () => {
  it("hands over to a fresh task that starts from the context, stored linked, and that task resumes with its conversation", { timeout: 120_000 }, async () => {
    const t = await open(
      [
        call("new_task", { context: "HANDOFF-CONTEXT: write done.txt saying finished" }),
        call("write_to_file", { path: "done.txt", content: "finished\n" }),
        call("attempt_completion", { result: "The new task wrote done.txt" }),
        call("attempt_completion", { result: "Carried on after the resume" }),
      ],
      ["--auto-approve", "edit", "ORIGINAL-REQUEST: tidy up"],
    );
    await t.waitFor("Hand over to a fresh task with the context above?");
    await t.press("y");
    const done = lastSession(await t.waitFor("✓ The new task wrote done.txt"));
    positions(done, ["HANDOFF-CONTEXT: write done.txt saying finished", "✓ write done.txt", "✓ The new task wrote done.txt"]);
    expect(readFileSync(path.join(fx.workspace.dir, "done.txt"), "utf8")).toBe("finished\n");
    // The fresh task starts from the context alone.
    expect(requestText(1)).toContain("HANDOFF-CONTEXT");
    expect(requestText(1)).not.toContain("ORIGINAL-REQUEST");

    const id = await leave(t);
    const stored = storedTasks();
    expect(stored).toHaveLength(2);
    const child = stored.find((task) => task.id === id)!;
    const parent = stored.find((task) => task.id !== id)!;
    expect(child.parent).toEqual({ id: parent.id, relation: "handoff" });

    t.launch(provider());
    await t.waitFor("Resume a recent task, or start a new one");
    // The task it came from is first after "New task", the fresh one under it.
    const picker = lastSession(await t.waitFor("↳ handed over: HANDOFF-CONTEXT"));
    const [parentAt, childAt] = positions(picker, ["ORIGINAL-REQUEST: tidy up", "↳ handed over: HANDOFF-CONTEXT"]);
    expect(parentAt).toBeLessThan(childAt!);
    await t.press("Down", "Down", "Enter");
    const replay = lastSession(await t.waitFor(`Resumed task ${id}`));
    positions(replay, ["✓ write done.txt", "The new task wrote done.txt"]);
    await t.type("one more thing");
    await t.press("Enter");
    await t.waitFor("✓ Carried on after the resume");
    const last = requestText(fx.server!.requests.length - 1);
    expect(last).toContain("HANDOFF-CONTEXT");
    expect(last).toContain("one more thing");
    expect(last).not.toContain("ORIGINAL-REQUEST");
  });
});

describe("a task whose process died, in the terminal", () => {
  it("is listed as interrupted, reopens as interrupted with the call it was in, and carries on", { timeout: 120_000 }, async () => {
    const t = await open(
      [
        call("execute_command", { command: "echo BEFORE-THE-CRASH", requires_approval: false }),
        { delayMs: 60_000 },
        call("attempt_completion", { result: "Finished after the crash" }),
      ],
      ["--auto-approve", "all-commands", "Run the slow job"],
    );
    await t.waitFor("✓ $ echo BEFORE-THE-CRASH");
    await until(() => fx.server!.requests.length === 2, "the second model request");
    t.killCairn();
    await t.waitFor(/\[cairn exited \d+\]/);
    const id = storedTasks()[0]!.id;
    expect(storedTasks()[0]!.status).toBe("running");

    t.launch(provider());
    const picker = await t.waitFor("Resume a recent task, or start a new one");
    expect(lastSession(picker)).toMatch(/Run the slow job\s+interrupted ·/);
    await t.press("Down", "Enter");
    const replay = lastSession(await t.waitFor(`Resumed task ${id} (interrupted)`));
    positions(replay, ["❯ Run the slow job", "✓ $ echo BEFORE-THE-CRASH"]);
    await t.press("Enter");
    await t.waitFor("✓ Finished after the crash");
    expect(requestText(fx.server!.requests.length - 1)).toContain("interrupted");
  });
});
