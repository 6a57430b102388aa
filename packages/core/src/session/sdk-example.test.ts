import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../../../../test/support/scripted-model-server.js";
import { openSession, SessionRunner } from "../index.js";

let root: string | undefined;
let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

it("a host needs about ten lines: open a session, run the task, read the result, close", async () => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-sdk-")));
  server = await startScriptedModelServer({
    turns: [
      { content: [{ type: "tool_use", name: "write_to_file", input: { path: "hello.txt", content: "hi\n" } }] },
      { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Wrote hello.txt" } }] },
    ],
  });
  const env = { PATH: process.env.PATH, HOME: root, CAIRN_HOME: path.join(root, "home"), ANTHROPIC_API_KEY: "k", CAIRN_BASE_URL: server.url };

  // What a host writes (everything else, from settings to checkpoints, is the session's):
  const session = await openSession({ cwd: root, env, overrides: { autoApprove: ["edit"] }, title: "Say hi" });
  let answer = "";
  for await (const event of session.task.run("Write hello.txt saying hi")) {
    if (event.type === "result") answer = event.result;
  }
  await session.close();

  expect(answer).toBe("Wrote hello.txt");
  expect(readFileSync(path.join(root, "hello.txt"), "utf8")).toBe("hi\n");
  expect(session.store.metadata().status).toBe("completed");
});

it("a host's session is a SessionRunner: send, close, and the same task resumed elsewhere with its events replayed", async () => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-sdk-")));
  server = await startScriptedModelServer({
    turns: [
      { content: [{ type: "tool_use", name: "write_to_file", input: { path: "hello.txt", content: "hi\n" } }] },
      { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Wrote hello.txt" } }] },
      { content: [{ type: "tool_use", name: "write_to_file", input: { path: "hello.txt", content: "hi\nbye\n" } }] },
      { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Added bye" } }] },
    ],
  });
  const env = { PATH: process.env.PATH, HOME: root, CAIRN_HOME: path.join(root, "home"), ANTHROPIC_API_KEY: "k", CAIRN_BASE_URL: server.url };

  // The README's example, with this test's environment.
  const runner = SessionRunner.fresh({ cwd: root, env, overrides: { autoApprove: ["read", "edit"] } });
  const calls: string[] = [];
  runner.subscribe((event) => {
    if (event.type === "tool_call") calls.push(event.summary);
  });
  const result = await runner.send("Write hello.txt saying hi");
  await runner.close();

  const again = await SessionRunner.resume({ id: runner.id!, env, overrides: { autoApprove: ["read", "edit"] } });
  const seen: string[] = [];
  again.subscribe((event) => seen.push(event.type), { replay: true });
  await again.send("Now add a second line: bye");
  expect(readFileSync(path.join(root, "hello.txt"), "utf8")).toBe("hi\nbye\n");
  await again.restore(1, "both");
  await again.close();

  expect(result.result).toBe("Wrote hello.txt");
  expect(calls).toHaveLength(2);
  expect(seen.filter((t) => t === "user_message")).toHaveLength(2);
  expect(seen.at(-1)).toBe("restored");
  // Checkpoint 1 is the task's start: before hello.txt, after its first message.
  expect(existsSync(path.join(root, "hello.txt"))).toBe(false);
  expect(again.session!.task.snapshot().messages).toHaveLength(1);
});
