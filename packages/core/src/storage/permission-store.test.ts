import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addPermissionRule, listPermissionRules, permissionsFile, PermissionsFileError } from "./permission-store.js";
import { loadSettings } from "./settings.js";

let home: string;
let ws: string;
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), "cairn-perm-home-"));
  ws = mkdtempSync(path.join(os.tmpdir(), "cairn-perm-ws-"));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(ws, { recursive: true, force: true });
});

/** The one line a damaged file stops a run with. */
function problem(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the read to fail");
}

describe("a damaged permissions.json is worded as settings.json is", () => {
  const file = () => permissionsFile(home);
  const settingsFile = () => path.join(home, "settings.json");

  it("an unknown key: the file, the key, the nearest known one, the keys there are, what to do", () => {
    writeFileSync(file(), JSON.stringify({ user: [], workspace: {} }));
    const message = problem(() => listPermissionRules(home, ws));
    expect(message).toBe(`${file()}: unknown key "workspace" (did you mean "workspaces"?); the keys that can be set here are user, workspaces. Fix the file or move it aside.`);
    // settings.json says the same of its own keys.
    writeFileSync(settingsFile(), JSON.stringify({ modle: "m" }));
    expect(problem(() => loadSettings(home))).toMatch(new RegExp(`^${settingsFile().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: unknown key "modle" \\(did you mean "model"\\?\\); the keys that can be set here are .*\\. Fix the file or move it aside\\.$`));
  });

  it("a value of the wrong type names where it is", () => {
    writeFileSync(file(), JSON.stringify({ user: "execute_command(*)" }));
    expect(problem(() => listPermissionRules(home, ws))).toMatch(new RegExp(`^${file().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: "user" invalid input: expected array, received string\\. Fix the file or move it aside\\.$`));
    writeFileSync(file(), JSON.stringify({ workspaces: { [ws]: [1] } }));
    expect(problem(() => listPermissionRules(home, ws))).toContain(`: "workspaces.${ws}.0" invalid input: expected string`);
    writeFileSync(file(), "[]");
    expect(problem(() => listPermissionRules(home, ws))).toMatch(/: the top level invalid input: expected object, received array\. Fix the file or move it aside\.$/);
  });

  it("a syntax error names its line and column; every problem is one line and a PermissionsFileError, and nothing is written over it", () => {
    const broken = '{\n  "user": ["read_file(*)"],,\n}';
    writeFileSync(file(), broken);
    const message = problem(() => addPermissionRule(home, ws, "user", "write_to_file(src/**)"));
    expect(message).toMatch(/is not valid JSON: .* at line 2, column 28\. Fix the file or move it aside\.$/);
    expect(message).not.toContain("\n");
    expect(() => listPermissionRules(home, ws)).toThrow(PermissionsFileError);
    writeFileSync(file(), JSON.stringify({ allowEverything: true }));
    expect(() => listPermissionRules(home, ws)).toThrow(PermissionsFileError);
  });

  it("a good file is read, and a missing one has no rules", () => {
    expect(listPermissionRules(home, ws)).toEqual([]);
    addPermissionRule(home, ws, "user", "write_to_file(src/**)");
    addPermissionRule(home, ws, "workspace", "read_file(*)");
    expect(listPermissionRules(home, ws)).toEqual([
      { scope: "workspace", text: "read_file(*)" },
      { scope: "user", text: "write_to_file(src/**)" },
    ]);
  });
});
