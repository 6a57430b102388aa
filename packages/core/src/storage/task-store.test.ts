import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomicSync } from "../disk/atomic-write.js";
import { listTasks } from "./history.js";
import { TaskStore } from "./task-store.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), "cairn-store-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const init = { workspace: "/w", provider: "anthropic", model: "m", protocol: "native" as const, mode: "act" as const };

describe("writeFileAtomicSync", () => {
  it("replaces a file whole", () => {
    const file = path.join(home, "f.json");
    writeFileAtomicSync(file, "old");
    writeFileAtomicSync(file, "new");
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(readdirSync(home)).toEqual(["f.json"]);
  });

  it("a write interrupted between the temp file and the rename leaves the old content readable", () => {
    const store = TaskStore.create(home, { ...init, task: "t" });
    const file = path.join(store.dir, "metadata.json");
    const before = readFileSync(file, "utf8");
    // What a crash right before rename leaves behind: a half-written temp file next to the intact target.
    writeFileSync(path.join(store.dir, ".metadata.json.999.abc.tmp"), '{"id": "half');
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(TaskStore.open(home, store.id).metadata().id).toBe(store.id);
    expect(listTasks(home).entries.map((e) => e.id)).toEqual([store.id]);
  });
});

describe("TaskStore", () => {
  it("keeps the conversation append-only and loads it back", () => {
    const store = TaskStore.create(home, { ...init, task: "first line\nsecond" });
    store.message({ role: "user", content: [{ type: "text", text: "hi" }] });
    store.message({ role: "assistant", content: [{ type: "tool-call", id: "c1", name: "read_file", input: { path: "a" } }] });
    store.callResult({ id: "c1", name: "read_file", input: { path: "a" } }, { content: "A" });
    const loaded = TaskStore.open(home, store.id).loadConversation();
    expect(loaded.messages).toHaveLength(2);
    expect(loaded.pending).toEqual([{ call: { id: "c1", name: "read_file", input: { path: "a" } }, result: { content: "A" } }]);
    expect(store.metadata().title).toBe("first line");
  });

  it("skips a last line cut by a crash, says so, and loads the rest", () => {
    const store = TaskStore.create(home, { ...init, task: "t" });
    store.message({ role: "user", content: [{ type: "text", text: "hi" }] });
    appendFileSync(path.join(store.dir, "conversation.jsonl"), '{"message": {"role": "assis');
    const loaded = store.loadConversation();
    expect(loaded.messages).toHaveLength(1);
    expect(loaded.warnings[0]).toMatch(/line 2 is damaged/);
  });

  it("replaceMessages rewrites the conversation (restore, truncation)", () => {
    const store = TaskStore.create(home, { ...init, task: "t" });
    for (const text of ["a", "b", "c"]) store.message({ role: "user", content: [{ type: "text", text }] });
    store.replaceMessages([{ role: "user", content: [{ type: "text", text: "a" }] }]);
    expect(store.loadConversation().messages).toHaveLength(1);
  });

  it("does not store token-by-token deltas in the event log", () => {
    const store = TaskStore.create(home, { ...init, task: "t" });
    store.event({ type: "text_delta", message_id: "m", text: "x" });
    store.event({ type: "turn_start", turn: 1, reason: "start" });
    expect(store.loadEvents().map((e) => e.type)).toEqual(["turn_start"]);
  });

  it("opens a task by a unique id prefix and refuses an ambiguous one", () => {
    const a = TaskStore.create(home, { ...init, task: "a", id: "20261121-aaaa1111" });
    TaskStore.create(home, { ...init, task: "b", id: "20261121-aaaa2222" });
    expect(TaskStore.open(home, "20261121-aaaa1").id).toBe(a.id);
    expect(() => TaskStore.open(home, "20261121-aaaa")).toThrow(/matches 2 tasks/);
    expect(() => TaskStore.open(home, "zzz")).toThrow(/No task "zzz"/);
  });

  it("a task left running by a dead process reads as interrupted (its lock names the process)", () => {
    const store = TaskStore.create(home, { ...init, task: "t" });
    expect(store.interrupted).toBe(false);
    store.release();
    writeFileSync(path.join(store.dir, "writer.lock"), JSON.stringify({ pid: 2 ** 22 + 12345, start: "1", host: os.hostname(), nonce: "n" }));
    expect(TaskStore.open(home, store.id).interrupted).toBe(true);
  });
});

describe("listTasks", () => {
  it("rebuilds a damaged index from the task folders and notices folders the index misses", () => {
    const a = TaskStore.create(home, { ...init, task: "a" });
    writeFileSync(path.join(home, "tasks", "index.json"), "garbage");
    const rebuilt = listTasks(home);
    expect(rebuilt.rebuilt).toBe(true);
    expect(rebuilt.entries.map((e) => e.id)).toEqual([a.id]);
    writeFileSync(path.join(home, "tasks", "index.json"), "[]");
    expect(listTasks(home).entries.map((e) => e.id)).toEqual([a.id]);
  });
});

describe("task ids", () => {
  it("refuses ids that are not one plain folder name, and prefixes that could leave tasks/", () => {
    for (const bad of ["../x", "a/b", "..", ".", "", "-rf", "a\\b", "x\0y"]) {
      expect(() => TaskStore.open(home, bad), bad).toThrow(/is not a task id/);
      expect(() => TaskStore.create(home, { ...init, task: "t", id: bad }), bad).toThrow(/not a valid task id/);
    }
    expect(TaskStore.create(home, { ...init, task: "t" }).id).toMatch(/^\d{8}-[0-9a-f]{8}$/);
  });

  it("refuses a task whose metadata names another id, and deletes only the folder under tasks/", () => {
    const victim = mkdtempSync(path.join(os.tmpdir(), "cairn-victim-"));
    try {
      writeFileSync(path.join(victim, "keep.txt"), "keep");
      const store = TaskStore.create(home, { ...init, task: "t" });
      const meta = JSON.parse(readFileSync(path.join(store.dir, "metadata.json"), "utf8")) as Record<string, unknown>;
      const crafted = path.relative(path.join(home, "tasks"), victim);
      writeFileSync(path.join(store.dir, "metadata.json"), JSON.stringify({ ...meta, id: crafted }));
      expect(() => TaskStore.open(home, store.id)).toThrow(/names the task ".*cairn-victim-.*", not ".*"; it was edited or damaged/);
      rmSync(path.join(home, "tasks", "index.json"), { force: true });
      expect(listTasks(home).entries.map((e) => e.id)).not.toContain(crafted);
      expect(readFileSync(path.join(victim, "keep.txt"), "utf8")).toBe("keep");

      const other = TaskStore.create(home, { ...init, task: "u" });
      other.delete();
      expect(readdirSync(path.join(home, "tasks"))).not.toContain(other.id);
    } finally {
      rmSync(victim, { recursive: true, force: true });
    }
  });
});
