import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseSlashCommand } from "./slash-commands.js";

let cwd: string;
let home: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(os.tmpdir(), "cairn-slash-"));
  home = mkdtempSync(path.join(os.tmpdir(), "cairn-slash-home-"));
});
afterEach(() => {
  rmSync(cwd, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe("parseSlashCommand", () => {
  it("reads the built-in commands and their arguments", () => {
    expect(parseSlashCommand("/compact", { cwd })).toEqual({ kind: "compact", rest: "" });
    expect(parseSlashCommand("  /smol keep the API notes ", { cwd })).toEqual({ kind: "compact", rest: "keep the API notes" });
    expect(parseSlashCommand("/newtask focus on the tests", { cwd })).toEqual({ kind: "newtask", rest: "focus on the tests" });
    const rule = parseSlashCommand("/newrule always run npm test before finishing", { cwd });
    expect(rule?.kind).toBe("text");
    expect(rule?.kind === "text" && rule.text).toMatch(/\.cairnrules\/.*always run npm test before finishing/s);
  });

  it("runs workflows from the workspace, then from CAIRN_HOME, with arguments", () => {
    mkdirSync(path.join(cwd, ".cairnrules", "workflows"), { recursive: true });
    writeFileSync(path.join(cwd, ".cairnrules", "workflows", "release.md"), "1. Bump the version.\n2. Update CHANGELOG.md.\n");
    mkdirSync(path.join(home, "workflows"));
    writeFileSync(path.join(home, "workflows", "review.md"), "Review the diff for bugs.\n");
    expect(parseSlashCommand("/release 2.0.0", { cwd, home })).toEqual({ kind: "text", text: "1. Bump the version.\n2. Update CHANGELOG.md.\n\nArguments: 2.0.0" });
    expect(parseSlashCommand("/review", { cwd, home })).toEqual({ kind: "text", text: "Review the diff for bugs." });
  });

  it("leaves ordinary messages alone, including ones that start with a path", () => {
    expect(parseSlashCommand("/etc/hosts has a wrong entry", { cwd, home })).toBeUndefined();
    expect(parseSlashCommand("/unknown thing", { cwd, home })).toBeUndefined();
    expect(parseSlashCommand("please /compact later", { cwd })).toBeUndefined();
  });
});
