import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";

/**
 * Every edit's diff reaches the hosts, whoever approved it: an edit run without asking (auto-approve,
 * yolo, a saved rule) carries it on its running update in `cairn run --json`, computed before the
 * file changed; one that will fail says why instead.
 */

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = call("attempt_completion", { result: "done" });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const run = (...args: string[]) => runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--json", ...args], { env: env() });
const at = (name: string) => path.join(fx.workspace.dir, name);

type Update = { type: string; status?: string; name?: string; preview?: unknown; approval?: unknown };
const running = (events: Update[]) => events.filter((e) => e.type === "tool_call_update" && e.status === "running");

describe("cairn run --json: the diff of an edit approved without asking", () => {
  it("--auto-approve edit: each write's running update carries its diff, old text as the file was before", async () => {
    writeFileSync(at("keep.txt"), "original\n");
    fx.server = await startScriptedModelServer({
      turns: [
        call("write_to_file", { path: "b.txt", content: "hello\n" }),
        call("write_to_file", { path: "keep.txt", content: "changed\n" }),
        call("replace_in_file", { path: "keep.txt", diff: "------- SEARCH\nchanged\n=======\nchanged again\n+++++++ REPLACE" }),
        call("replace_in_file", { path: "keep.txt", diff: "------- SEARCH\nnot there\n=======\nx\n+++++++ REPLACE" }),
        done,
      ],
    });
    const result = await run("--auto-approve", "read,edit", "write the files");
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(at("keep.txt"), "utf8")).toBe("changed again\n");
    const events = result.events as Update[];
    expect(events.some((e) => e.status === "awaiting_approval")).toBe(false);
    expect(running(events).map((e) => [e.name, e.preview])).toEqual([
      ["write_to_file", { type: "diff", path: "b.txt", old_text: null, new_text: "hello\n" }],
      ["write_to_file", { type: "diff", path: "keep.txt", old_text: "original\n", new_text: "changed\n" }],
      ["replace_in_file", { type: "diff", path: "keep.txt", old_text: "changed\n", new_text: "changed again\n" }],
      ["replace_in_file", { type: "diff_unavailable", path: "keep.txt", reason: "this edit will fail: SEARCH block 1 not found" }],
      // Calls that are not edits carry none.
      ["attempt_completion", undefined],
    ]);
  });

  it("a saved rule and --yolo: the edit they let through carries its diff too", async () => {
    const added = await runCairn(["permissions", "add", "--cwd", fx.workspace.dir, "write_to_file(src/**)"], { env: env() });
    expect(added.code, added.stderr).toBe(0);
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "src/r.txt", content: "by rule\n" }), done] });
    const byRule = await run("write it");
    expect(byRule.code, byRule.stderr).toBe(0);
    expect(running(byRule.events as Update[])[0]).toMatchObject({ name: "write_to_file", decision: { by: "rule" }, preview: { type: "diff", path: "src/r.txt", old_text: null, new_text: "by rule\n" } });
    await fx.server.close();

    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "src/r.txt", content: "by yolo\n" }), done] });
    const byYolo = await run("--yolo", "write it again");
    expect(byYolo.code, byYolo.stderr).toBe(0);
    expect(running(byYolo.events as Update[])[0]).toMatchObject({ preview: { type: "diff", path: "src/r.txt", old_text: "by rule\n", new_text: "by yolo\n" } });
    expect(readFileSync(at("src/r.txt"), "utf8")).toBe("by yolo\n");
  });

  it("a control: without auto-approve nobody can approve in --json, the edit is refused and no diff is computed for a run that never happens", async () => {
    fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "b.txt", content: "hello\n" }), done] });
    const result = await run("write it");
    const events = result.events as Update[];
    // The refusal still showed what was asked (the approval's preview), and nothing ran.
    expect(events.find((e) => e.status === "awaiting_approval")).toMatchObject({ approval: { preview: { type: "diff", path: "b.txt", old_text: null, new_text: "hello\n" } } });
    expect(running(events).filter((e) => e.name === "write_to_file")).toEqual([]);
  });
});
