import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IgnoreRules } from "../policy/ignore-rules.js";
import { allTools } from "../tools/registry.js";
import type { AnyTool } from "../tools/tool.js";
import { gatherFacts } from "./gather-facts.js";

let base: string;
let ws: string;
let outside: string;
let scratch: string;

beforeEach(() => {
  base = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), "cairn-facts-")));
  ws = path.join(base, "ws");
  outside = path.join(base, "outside");
  scratch = path.join(base, "scratch");
  fs.mkdirSync(path.join(ws, "src"), { recursive: true });
  fs.mkdirSync(path.join(ws, ".git"));
  fs.mkdirSync(outside);
  fs.mkdirSync(scratch);
  fs.writeFileSync(path.join(ws, "src", "a.ts"), "a\n");
  fs.writeFileSync(path.join(outside, "secret.txt"), "secret\n");
  fs.writeFileSync(path.join(scratch, "output.log"), "log\n");
});

afterEach(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

const tool = (name: string): AnyTool => {
  const found = allTools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

/** The one path fact of a read_file (or write_to_file) call of `p`, the workspace being `cwd`. */
function fact(p: string, options: { cwd?: string; edit?: boolean; readRoots?: string[] } = {}) {
  const input = options.edit ? { path: p, content: "x" } : { path: p };
  const facts = gatherFacts({ cwd: options.cwd ?? ws, scratchDir: scratch, readRoots: options.readRoots }, tool(options.edit ? "write_to_file" : "read_file"), input, {});
  expect(facts.paths).toHaveLength(1);
  return facts.paths[0]!;
}

describe("gatherFacts: the paths a call names, judged on their real location", () => {
  it("an ordinary path inside: relative to the workspace, as policy's rules match it", () => {
    expect(fact("src/a.ts")).toEqual({ access: "read", path: "src/a.ts", absolute: path.join(ws, "src", "a.ts"), external: false, relative: "src/a.ts" });
    expect(fact("src/new/b.ts", { edit: true })).toEqual({ access: "edit", path: "src/new/b.ts", absolute: path.join(ws, "src", "new", "b.ts"), external: false, relative: "src/new/b.ts" });
  });

  it("a link inside the workspace counts as the file it leads to (rules see where it really is)", () => {
    fs.symlinkSync(path.join(ws, "src"), path.join(ws, "alias"));
    expect(fact("alias/a.ts")).toMatchObject({ absolute: path.join(ws, "alias", "a.ts"), external: false, relative: "src/a.ts" });
  });

  it("the workspace reached through a link: paths are still relative to its real root", () => {
    const alias = path.join(base, "ws-alias");
    fs.symlinkSync(ws, alias);
    expect(fact("src/a.ts", { cwd: alias })).toMatchObject({ absolute: path.join(alias, "src", "a.ts"), external: false, relative: "src/a.ts" });
    expect(fact("../outside/secret.txt", { cwd: alias })).toMatchObject({ external: true });
    expect(fact("../outside/secret.txt", { cwd: alias }).relative).toBeUndefined();
  });

  it.each([
    ["a link pointing out", () => fs.symlinkSync(path.join(outside, "secret.txt"), path.join(ws, "innocent.txt")), "innocent.txt"],
    ["a folder link pointing out, and a new file below it", () => fs.symlinkSync(outside, path.join(ws, "vendor")), "vendor/new.ts"],
    ["a dangling link whose target would be created outside", () => fs.symlinkSync(path.join(outside, "not-yet.txt"), path.join(ws, "later.txt")), "later.txt"],
    ["..", () => undefined, "../outside/secret.txt"],
    ["an absolute path", () => undefined, "/etc/passwd"],
    ["~", () => undefined, "~/.ssh/id_rsa"],
  ])("%s is outside, with no workspace-relative path a rule could match", (_name, arrange, p) => {
    arrange();
    for (const edit of [false, true]) {
      const found = fact(p, { edit });
      expect(found.external).toBe(true);
      expect(found.relative).toBeUndefined();
      expect(found.inReadRoot).toBeUndefined();
    }
  });

  it("~ is expanded to the home folder, as the tool will use it", () => {
    expect(fact("~/.ssh/id_rsa").absolute).toBe(path.join(os.homedir(), ".ssh", "id_rsa"));
  });

  it("a loop of links cannot be resolved: outside, and not in the scratch folder either", () => {
    fs.symlinkSync(path.join(ws, "loop-b"), path.join(ws, "loop-a"));
    fs.symlinkSync(path.join(ws, "loop-a"), path.join(ws, "loop-b"));
    fs.symlinkSync(path.join(scratch, "loop-d"), path.join(scratch, "loop-c"));
    fs.symlinkSync(path.join(scratch, "loop-c"), path.join(scratch, "loop-d"));
    for (const p of ["loop-a/file.txt", path.join(scratch, "loop-c", "file.txt")]) {
      const found = fact(p);
      expect(found.external).toBe(true);
      expect(found.relative).toBeUndefined();
      expect(found.inReadRoot).toBeUndefined();
    }
  });

  it("the task's scratch folder is outside but a read root; a link in it pointing elsewhere is not", () => {
    expect(fact(path.join(scratch, "output.log"))).toMatchObject({ external: true, inReadRoot: true });
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(scratch, "leak.txt"));
    expect(fact(path.join(scratch, "leak.txt")).inReadRoot).toBeUndefined();
    // And a link in the workspace to the scratch folder reads from it.
    fs.symlinkSync(scratch, path.join(ws, "to-scratch"));
    expect(fact("to-scratch/output.log")).toMatchObject({ external: true, inReadRoot: true });
  });

  it("a listed skill's folder is a read root: a file in it, not one beside it nor a link in it leading out", () => {
    const skill = path.join(outside, "skills", "pdf-forms");
    fs.mkdirSync(path.join(skill, "references"), { recursive: true });
    fs.writeFileSync(path.join(skill, "references", "forms.md"), "forms\n");
    fs.writeFileSync(path.join(outside, "skills", "other.md"), "other\n");
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(skill, "leak.txt"));
    const roots = { readRoots: [skill] };
    expect(fact(path.join(skill, "references", "forms.md"), roots)).toMatchObject({ external: true, inReadRoot: true });
    expect(fact(path.join(outside, "skills", "other.md"), roots).inReadRoot).toBeUndefined();
    expect(fact(path.join(skill, "leak.txt"), roots).inReadRoot).toBeUndefined();
    expect(fact(path.join(skill, "references", "forms.md")).inReadRoot).toBeUndefined();
  });

  it("an edit of a protected file says so, also through a link; a read does not", () => {
    expect(fact(".git/config", { edit: true }).protected).toMatchObject({ path: ".git/config" });
    fs.symlinkSync(path.join(ws, ".git"), path.join(ws, "cfg"));
    expect(fact("cfg/hooks/pre-commit", { edit: true }).protected).toMatchObject({ path: ".git/hooks/pre-commit" });
    expect(fact(".git/config").protected).toBeUndefined();
  });

  it("a call that names no path has no path facts", () => {
    expect(gatherFacts({ cwd: ws, scratchDir: scratch }, tool("attempt_completion"), { result: "done" }, {}).paths).toEqual([]);
  });
});

describe("gatherFacts: what the refusals read (decideCall words them)", () => {
  it("the task's mode and whether the tool is offered in it", () => {
    expect(gatherFacts({ cwd: ws, scratchDir: scratch, mode: "plan" }, tool("write_to_file"), { path: "a", content: "x" }, {}).mode).toEqual({ now: "plan", offered: false });
    expect(gatherFacts({ cwd: ws, scratchDir: scratch, mode: "plan" }, tool("read_file"), { path: "a" }, {}).mode).toEqual({ now: "plan", offered: true });
  });

  it("the tool of the task's previous call", () => {
    const history = [{ name: "read_file", signature: "r" }, { name: "act_mode_respond", signature: "a" }];
    expect(gatherFacts({ cwd: ws, scratchDir: scratch, history }, tool("act_mode_respond"), { response: "hi" }, {}).previous).toBe("act_mode_respond");
    expect(gatherFacts({ cwd: ws, scratchDir: scratch, history: [] }, tool("act_mode_respond"), { response: "hi" }, {}).previous).toBeUndefined();
  });

  it("the first ignored path, of the hook's rewrite or of the model's own input, and the ignore files' names", () => {
    fs.writeFileSync(path.join(ws, ".cairnignore"), "secrets/\n");
    const where = { cwd: ws, scratchDir: scratch, ignore: new IgnoreRules(ws) };
    expect(gatherFacts(where, tool("read_file"), { path: "secrets/key.txt" }, {}).ignored).toEqual({ path: "secrets/key.txt", by: ".cairnignore" });
    // A hook rewrote an ignored path to an allowed one: the model still asked for the ignored one.
    expect(gatherFacts(where, tool("read_file"), { path: "src/a.ts" }, { asked: { path: "secrets/key.txt" } }).ignored).toEqual({ path: "secrets/key.txt", by: ".cairnignore" });
    expect(gatherFacts(where, tool("read_file"), { path: "src/a.ts" }, { asked: { path: "src/b.ts" } }).ignored).toBeUndefined();
  });
});
