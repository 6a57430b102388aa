import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../../../../test/support/scripted-model-server.js";
import { openSession } from "../index.js";

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
