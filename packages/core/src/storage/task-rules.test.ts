import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadTaskRules } from "./task-rules.js";
import { TaskStore } from "./task-store.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), "cairn-task-rules-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const init = { task: "t", workspace: "/w", provider: "anthropic", model: "m", protocol: "native" as const, mode: "act" as const };

describe("loadTaskRules", () => {
  it("restores good rules as task-scope rules, in their canonical text", () => {
    expect(loadTaskRules(["execute_command(npm   test *)", "web_fetch(docs.example.com)"], "m.json")).toEqual({
      rules: [
        { text: "execute_command(npm test *)", tool: "execute_command", pattern: "npm test *", scope: "task" },
        { text: "web_fetch(docs.example.com)", tool: "web_fetch", pattern: "docs.example.com", scope: "task" },
      ],
      problems: [],
    });
    expect(loadTaskRules(undefined, "m.json")).toEqual({ rules: [], problems: [] });
  });

  it("drops what does not parse (or could never match) with one line each, naming the file, and keeps the rest", () => {
    const loaded = loadTaskRules(["web_fetch(", 7, "read_file(../outside/*)", "web_fetch(a.example)", "bad\nrule"], "/h/tasks/x/metadata.json");
    expect(loaded.rules.map((r) => r.text)).toEqual(["web_fetch(a.example)"]);
    expect(loaded.problems).toHaveLength(4);
    for (const line of loaded.problems) {
      expect(line).not.toContain("\n");
      expect(line).toContain("/h/tasks/x/metadata.json is damaged");
      expect(line).toContain("you will be asked again");
    }
    expect(loadTaskRules({ rules: [] }, "m.json").problems).toEqual([expect.stringContaining('"taskRules" is not a list')]);
  });
});

describe("TaskStore.addTaskRule", () => {
  it("writes the rule to metadata.json at once, once, and a reopened store reads it back", () => {
    const store = TaskStore.create(home, init);
    store.addTaskRule("web_fetch(a.example)");
    store.addTaskRule("web_fetch(a.example)");
    const file = path.join(store.dir, "metadata.json");
    expect(JSON.parse(readFileSync(file, "utf8")).taskRules).toEqual(["web_fetch(a.example)"]);
    // A later step's state write keeps it.
    store.state({ mode: "act", status: "completed", turns: 2, usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, totalCostUsd: null });
    expect(TaskStore.open(home, store.id).metadata().taskRules).toEqual(["web_fetch(a.example)"]);
  });

  it("a damaged list is cleaned when a new rule is added: the bad entries go, the good ones stay", () => {
    const store = TaskStore.create(home, init);
    const file = path.join(store.dir, "metadata.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), taskRules: ["web_fetch(", "web_fetch(a.example)", 3] }));
    const reopened = TaskStore.open(home, store.id);
    reopened.addTaskRule("execute_command(npm test *)");
    expect(JSON.parse(readFileSync(file, "utf8")).taskRules).toEqual(["web_fetch(a.example)", "execute_command(npm test *)"]);
  });
});
