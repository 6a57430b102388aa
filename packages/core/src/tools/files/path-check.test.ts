import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IgnoreRules } from "../../policy/ignore-rules.js";
import { refusalFor } from "./path-check.js";

let base: string;
let ws: string;
let skill: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-path-check-")));
  ws = path.join(base, "ws");
  skill = path.join(base, "home", "skills", "pdf-forms");
  mkdirSync(ws);
  mkdirSync(path.join(skill, "references"), { recursive: true });
  writeFileSync(path.join(skill, "references", "forms.md"), "forms\n");
  writeFileSync(path.join(base, "secret.txt"), "secret\n");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("refusalFor: read roots (the listed skills' folders)", () => {
  it("a read inside a read root is allowed where it really is; beside it, through a link out of it, or an edit, it is refused", () => {
    const boundary = { cwd: ws, ignore: new IgnoreRules(ws), readRoots: [skill] };
    const file = path.join(skill, "references", "forms.md");
    expect(refusalFor(boundary, file, file, file, "read")).toBeUndefined();
    expect(refusalFor(boundary, file, file, file, "edit")).toMatch(/leads outside the workspace/);
    const beside = path.join(base, "home", "skills", "notes.txt");
    expect(refusalFor(boundary, beside, beside, beside, "read")).toMatch(/leads outside the workspace/);
    // A file of the skill swapped for a link to a secret: judged on where it really leads.
    symlinkSync(path.join(base, "secret.txt"), path.join(skill, "leak.txt"));
    expect(refusalFor(boundary, path.join(skill, "leak.txt"), path.join(base, "secret.txt"), "leak.txt", "read")).toMatch(/leads outside the workspace/);
    expect(refusalFor({ cwd: ws, ignore: new IgnoreRules(ws) }, file, file, file, "read")).toMatch(/leads outside the workspace/);
  });
});
