import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listWorkflows, parseSlashCommand } from "./slash-commands.js";

let cwd: string;
let home: string;
beforeEach(() => {
  cwd = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-slash-")));
  home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-slash-home-")));
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
    expect(parseSlashCommand("/usr/bin/env is missing", { cwd, home })).toBeUndefined();
    expect(parseSlashCommand("please /compact later", { cwd })).toBeUndefined();
  });

  it("a command-shaped word that names no command or workflow is unknown, not a message", () => {
    expect(parseSlashCommand("/deplyo now", { cwd, home })).toEqual({ kind: "unknown", name: "deplyo" });
    expect(parseSlashCommand("/unknown", { cwd, home })).toEqual({ kind: "unknown", name: "unknown" });
  });

  it("a workflow's front matter is left out of the message and its description kept for listings", () => {
    mkdirSync(path.join(cwd, ".cairnrules", "workflows"), { recursive: true });
    writeFileSync(path.join(cwd, ".cairnrules", "workflows", "ship.md"), '---\r\ndescription: "Tag and publish a release"\r\nauthor: me\r\n---\r\n\r\nBump, tag, publish.\r\n');
    writeFileSync(path.join(cwd, ".cairnrules", "workflows", "plain.md"), "---\n\nA rule line above, then steps.\n");
    expect(parseSlashCommand("/ship 1.2", { cwd, home })).toEqual({ kind: "text", text: "Bump, tag, publish.\n\nArguments: 1.2" });
    expect(parseSlashCommand("/plain", { cwd, home })).toEqual({ kind: "text", text: "---\n\nA rule line above, then steps." });
    expect(listWorkflows(cwd, home)).toEqual([
      { name: "plain", file: path.join(cwd, ".cairnrules", "workflows", "plain.md") },
      { name: "ship", file: path.join(cwd, ".cairnrules", "workflows", "ship.md"), description: "Tag and publish a release" },
    ]);
  });

  it("a workflow is a path like any other: a link outside the workspace or CAIRN_HOME, or to an ignored file, is skipped with a notice", () => {
    const outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-slash-outside-")));
    try {
      writeFileSync(path.join(outside, "id_ed25519"), "PRIVATE-KEY-WORKFLOW\n");
      writeFileSync(path.join(cwd, ".env"), "ENV-SECRET-WORKFLOW\n");
      writeFileSync(path.join(cwd, ".cairnignore"), ".env\n");
      writeFileSync(path.join(cwd, "checklist.md"), "Check the release.\n");
      const flows = path.join(cwd, ".cairnrules", "workflows");
      mkdirSync(flows, { recursive: true });
      mkdirSync(path.join(home, "workflows"));
      symlinkSync(path.join(outside, "id_ed25519"), path.join(flows, "key.md"));
      symlinkSync("../../.env", path.join(flows, "env.md"));
      linkSync(path.join(cwd, ".env"), path.join(flows, "hard.md"));
      symlinkSync(path.join(outside, "id_ed25519"), path.join(home, "workflows", "review.md"));
      symlinkSync("../../checklist.md", path.join(flows, "release.md"));

      for (const name of ["key", "env", "hard", "review"]) {
        const command = parseSlashCommand(`/${name} now`, { cwd, home });
        expect(command).toMatchObject({ kind: "text", text: `/${name} now`, notices: [expect.stringMatching(/^The workflow .* was skipped: it/)] });
        expect(JSON.stringify(command)).not.toMatch(/PRIVATE-KEY|ENV-SECRET/);
      }
      expect(parseSlashCommand("/review", { cwd, home })).toMatchObject({ notices: [expect.stringMatching(/leads outside CAIRN_HOME/)] });
      expect(parseSlashCommand("/env", { cwd, home })).toMatchObject({ notices: [expect.stringMatching(/blocked by \.cairnignore/)] });
      expect(parseSlashCommand("/hard", { cwd, home })).toMatchObject({ notices: [expect.stringMatching(/hard link of a file blocked/)] });
      // A link inside the workspace to a file no rule ignores runs.
      expect(parseSlashCommand("/release", { cwd, home })).toEqual({ kind: "text", text: "Check the release." });
      // A refused workspace workflow gives way to CAIRN_HOME's of the same name, and says so.
      writeFileSync(path.join(home, "workflows", "key.md"), "The person's own key workflow.\n");
      expect(parseSlashCommand("/key", { cwd, home })).toEqual({ kind: "text", text: "The person's own key workflow.", notices: [expect.stringMatching(/^The workflow \.cairnrules\/workflows\/key\.md was skipped: it leads outside the workspace/)] });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
