import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listTasks } from "../storage/history.js";
import { TaskStore } from "../storage/task-store.js";
import { exportTask } from "./export-task.js";
import { importTask } from "./import-task.js";
import { SecretRedactor } from "./secret-redaction.js";
import { TaskFileError } from "./task-file.js";

const dirs: string[] = [];
const temp = (name: string) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), `cairn-portable-${name}-`));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const anthropicKey = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";

function storedTask(home: string, workspace: string): TaskStore {
  const store = TaskStore.create(home, { workspace, provider: "anthropic", model: "m", protocol: "native", mode: "act", task: "Fix the build" });
  store.message({ role: "user", content: [{ type: "text", text: `Fix the build; the key is ${anthropicKey}` }] });
  store.message({ role: "assistant", content: [{ type: "reasoning", text: "thinking", signature: "sk-ant-not-a-key-but-a-signature-0123456789" }, { type: "text", text: "ok" }] });
  store.event({ type: "result", subtype: "success", result: `used ${anthropicKey}` } as never);
  store.state({ mode: "act", status: "completed", turns: 2, usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, totalCostUsd: 0.01, taskProgress: [{ text: "build", done: true }] });
  store.release();
  return store;
}

describe("SecretRedactor", () => {
  it("replaces known key shapes, URL passwords and secret-named variables' values, counting by kind", () => {
    const redactor = new SecretRedactor({ DEPLOY_TOKEN: "plain-looking-value-42", SHORT_KEY: "1", PATH: "/usr/bin:/bin" });
    const text = redactor.redact(`a ${anthropicKey} b ghp_${"a".repeat(36)} c postgres://app:hunter22@db/app d plain-looking-value-42 e AKIAABCDEFGHIJKLMNOP f /usr/bin 1`);
    expect(text).toBe("a [REDACTED:anthropic-key] b [REDACTED:github-token] c postgres://app:[REDACTED:url-password]@db/app d [REDACTED:env:DEPLOY_TOKEN] e [REDACTED:aws-access-key] f /usr/bin 1");
    expect(Object.fromEntries(redactor.counts)).toEqual({ "anthropic-key": 1, "github-token": 1, "url-password": 1, "env:DEPLOY_TOKEN": 1, "aws-access-key": 1 });
    expect(redactor.total).toBe(5);
  });

  it("leaves a thinking block's signature and a picture's data as they are: opaque, and checked byte for byte", () => {
    const redactor = new SecretRedactor();
    expect(redactor.redactJson({ type: "reasoning", text: anthropicKey, signature: anthropicKey })).toEqual({ type: "reasoning", text: "[REDACTED:anthropic-key]", signature: anthropicKey });
    // Anywhere else a "signature" is text like any other (a tool call's input is the model's to write), and so is a key.
    expect(redactor.redactJson({ type: "tool-call", input: { signature: anthropicKey, [anthropicKey]: 1 } })).toEqual({ type: "tool-call", input: { signature: "[REDACTED:anthropic-key]", "[REDACTED:anthropic-key]": 1 } });
    const picture = { type: "image", mediaType: "image/png", data: "iVBO/AKIAABCDEFGHIJKLMNOP/xyz" };
    expect(redactor.redactJson([picture, { type: "text", data: picture.data }])).toEqual([picture, { type: "text", data: "iVBO/[REDACTED:aws-access-key]/xyz" }]);
  });
});

describe("export and import", () => {
  it("a task exported from one home is restored in another with its conversation, journal and state, without the key", () => {
    const [home, other, workspace] = [temp("home"), temp("other"), temp("ws")];
    const store = storedTask(home, workspace);
    const { file } = exportTask({ home, id: store.id, exportedBy: "cairn test" });
    const text = JSON.stringify(file);
    expect(text).not.toContain(anthropicKey);
    expect(file.redactions).toEqual({ count: 2, kinds: { "anthropic-key": 2 } });

    const target = path.join(temp("files"), "task.json");
    writeFileSync(target, text);
    const moved = temp("moved");
    const imported = importTask({ home: other, file: target, cwd: moved });
    expect(imported).toMatchObject({ id: store.id, exportedId: store.id, title: "Fix the build", workspace: moved, subagents: 0, redactions: 2 });

    const restored = TaskStore.open(other, imported.id);
    expect(restored.metadata()).toMatchObject({ status: "completed", turns: 2, totalCostUsd: 0.01, workspace: moved, pid: 0, checkpoints: [], taskProgress: [{ text: "build", done: true }] });
    expect(restored.interrupted).toBe(false);
    const { messages } = restored.loadConversation();
    expect(messages).toHaveLength(2);
    expect(JSON.stringify(messages[0])).toContain("[REDACTED:anthropic-key]");
    expect(messages[1]).toMatchObject({ content: [{ signature: "sk-ant-not-a-key-but-a-signature-0123456789" }, { text: "ok" }] });
    expect(restored.loadEvents()).toEqual([{ type: "result", subtype: "success", result: "used [REDACTED:anthropic-key]" }]);
    expect(listTasks(other).entries.map((e) => e.id)).toEqual([store.id]);
    expect(readdirSync(other).sort()).toEqual(["tasks"]);

    // Imported again, it cannot take the same id: it gets its own.
    const again = importTask({ home: other, file: target });
    expect(again.id).not.toBe(store.id);
    expect(TaskStore.open(other, again.id).metadata().workspace).toBe(workspace);
  });

  it("a task exported while it ran is interrupted where it is imported: no process there runs it, and a resume takes it over", () => {
    const [home, other, workspace] = [temp("home"), temp("other"), temp("ws")];
    const running = TaskStore.create(home, { workspace, provider: "anthropic", model: "m", protocol: "native", mode: "act", task: "Long job" });
    const target = path.join(temp("files"), "task.json");
    writeFileSync(target, JSON.stringify(exportTask({ home, id: running.id, exportedBy: "cairn test" }).file));
    const imported = TaskStore.open(other, importTask({ home: other, file: target }).id);
    expect(imported.metadata()).toMatchObject({ status: "running", pid: 0 });
    expect(imported.metadata().processStart).toBeUndefined();
    expect(imported.interrupted).toBe(true);
    running.release();
  });

  it("a sub-agent's task goes with its task, and the links follow their new ids", () => {
    const [home, workspace] = [temp("home"), temp("ws")];
    const parent = storedTask(home, workspace);
    const child = TaskStore.create(home, { workspace, provider: "anthropic", model: "m", protocol: "native", mode: "act", task: "look around", parent: { id: parent.id, relation: "subagent" } });
    child.release();
    TaskStore.open(home, parent.id).addChild({ id: child.id, relation: "subagent" });
    const target = path.join(temp("files"), "task.json");
    writeFileSync(target, JSON.stringify(exportTask({ home, id: parent.id, exportedBy: "cairn test" }).file));

    // Into the same home: both ids are taken, so both change, and each names the other's new id.
    const imported = importTask({ home, file: target });
    expect(imported.subagents).toBe(1);
    const [link] = TaskStore.open(home, imported.id).metadata().children!;
    expect(link!.id).not.toBe(child.id);
    expect(TaskStore.open(home, link!.id).metadata()).toMatchObject({ title: "look around", parent: { id: imported.id, relation: "subagent" } });
  });

  it("a file cut short, of another format or of a newer version is refused in one line", () => {
    const [home, workspace, files] = [temp("home"), temp("ws"), temp("files")];
    const store = storedTask(home, workspace);
    const whole = JSON.stringify(exportTask({ home, id: store.id, exportedBy: "cairn test" }).file);
    const write = (name: string, text: string) => {
      writeFileSync(path.join(files, name), text);
      return path.join(files, name);
    };
    const refusal = (file: string) => {
      try {
        importTask({ home: temp("other"), file });
      } catch (error) {
        expect(error).toBeInstanceOf(TaskFileError);
        expect((error as Error).message).not.toContain("\n");
        return (error as Error).message;
      }
      throw new Error(`${file} was imported`);
    };
    expect(refusal(write("cut.json", whole.slice(0, whole.length / 2)))).toMatch(/cut\.json is not a whole exported task \(cut short or damaged/);
    expect(refusal(write("newer.json", whole.replace('"version":1', '"version":2')))).toMatch(/newer\.json was written by a newer Cairn \(task format version 2; this Cairn reads version 1\): update Cairn/);
    expect(refusal(write("other.json", "{}"))).toMatch(/other\.json is not an exported Cairn task/);
    expect(refusal(write("damaged.json", whole.replace('"conversation":[', '"conversation":[7,')))).toMatch(/damaged\.json is damaged \("tasks\.0\.conversation\.0"/);
    expect(refusal(path.join(files, "missing.json"))).toMatch(/Cannot read .*missing\.json \(ENOENT\)/);
  });
});
