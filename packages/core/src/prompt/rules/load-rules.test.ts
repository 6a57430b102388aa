import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadRules, RULES_MAX_BYTES } from "./load-rules.js";

let base: string;
let home: string;
let repo: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-rules-")));
  home = path.join(base, "home");
  repo = path.join(base, "repo");
  await mkdir(home);
  await mkdir(path.join(repo, ".git"), { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function files(root: string, entries: Record<string, string>) {
  for (const [name, content] of Object.entries(entries)) {
    const target = path.join(root, name);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

/** Where each marker appears in the prompt text, to check the order. */
function order(text: string, markers: string[]): number[] {
  return markers.map((m) => text.indexOf(m));
}

describe("loadRules: discovery and precedence", () => {
  it("reads global, repository root and nested AGENTS.md from general to specific, and says later wins", async () => {
    await files(home, { "AGENTS.md": "GLOBAL-RULE" });
    await files(repo, {
      "AGENTS.md": "ROOT-RULE",
      "packages/AGENTS.md": "MIDDLE-RULE",
      "packages/core/AGENTS.md": "LEAF-RULE",
      "packages/other/AGENTS.md": "SIBLING-RULE",
    });
    const cwd = path.join(repo, "packages", "core");
    const rules = loadRules({ cwd, home });

    expect(rules.sections.map((s) => [s.source, s.kind, s.scope])).toEqual([
      [path.join(home, "AGENTS.md"), "agents", "global"],
      [path.join(repo, "AGENTS.md"), "agents", "project"],
      [path.join(repo, "packages", "AGENTS.md"), "agents", "project"],
      ["AGENTS.md", "agents", "project"],
    ]);
    const positions = order(rules.text, ["GLOBAL-RULE", "ROOT-RULE", "MIDDLE-RULE", "LEAF-RULE"]);
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(rules.text).not.toContain("SIBLING-RULE");
    expect(rules.text).toMatch(/the one listed later wins/);
    expect(rules.text).toContain(`## ${path.join(home, "AGENTS.md")} (global)\n\nGLOBAL-RULE`);
    expect(rules.text).toContain("## AGENTS.md\n\nLEAF-RULE");
    expect(rules.warnings).toEqual([]);
    expect(rules.truncated).toBe(false);
  });

  it("without a git repository, only the workspace's own AGENTS.md is read", async () => {
    const plain = path.join(base, "plain", "ws");
    await files(path.join(base, "plain"), { "AGENTS.md": "PARENT-RULE", "ws/AGENTS.md": "WS-RULE" });
    const rules = loadRules({ cwd: plain, home });
    expect(rules.sections.map((s) => s.source)).toEqual(["AGENTS.md"]);
    expect(rules.text).toContain("WS-RULE");
    expect(rules.text).not.toContain("PARENT-RULE");
  });

  it("a .git file (a worktree) marks the repository root too", async () => {
    const worktree = path.join(base, "wt");
    await files(worktree, { ".git": "gitdir: /elsewhere\n", "AGENTS.md": "WT-ROOT", "sub/x.txt": "" });
    const rules = loadRules({ cwd: path.join(worktree, "sub"), home });
    expect(rules.text).toContain("WT-ROOT");
  });

  it("reads the workspace's rules files after AGENTS.md, Cairn's own .cairnrules last", async () => {
    await files(repo, {
      "AGENTS.md": "AGENTS-RULE",
      ".windsurfrules": "WINDSURF-RULE",
      ".cursorrules": "CURSOR-RULE",
      ".cursor/rules/style.mdc": "---\nalwaysApply: true\n---\nCURSOR-MDC-RULE",
      ".cursor/rules/manual.mdc": "---\ndescription: only when asked\n---\nMANUAL-MDC-RULE",
      ".clinerules/01-a.md": "CLINE-A",
      ".clinerules/02-b.md": "CLINE-B",
      ".clinerules/notes.txt": "NOT-MARKDOWN",
      ".clinerules/workflows/release.md": "WORKFLOW-NOT-A-RULE",
      ".cairnrules": "CAIRN-RULE",
    });
    const rules = loadRules({ cwd: repo, home });
    expect(rules.sections.map((s) => [s.source, s.kind, s.applies])).toEqual([
      ["AGENTS.md", "agents", true],
      [".windsurfrules", "windsurfrules", true],
      [".cursorrules", "cursorrules", true],
      [".cursor/rules/manual.mdc", "cursorrules", false],
      [".cursor/rules/style.mdc", "cursorrules", true],
      [".clinerules/01-a.md", "clinerules", true],
      [".clinerules/02-b.md", "clinerules", true],
      [".cairnrules", "cairnrules", true],
    ]);
    const markers = ["AGENTS-RULE", "WINDSURF-RULE", "CURSOR-RULE", "CURSOR-MDC-RULE", "CLINE-A", "CLINE-B", "CAIRN-RULE"];
    const positions = order(rules.text, markers);
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    for (const absent of ["WORKFLOW-NOT-A-RULE", "NOT-MARKDOWN", "MANUAL-MDC-RULE", "alwaysApply"]) expect(rules.text).not.toContain(absent);
  });

  it(".cairnrules as a folder: .md files in name order, subfolders included, workflows/ left out", async () => {
    await files(repo, {
      ".cairnrules/20-style.md": "STYLE",
      ".cairnrules/10-tests.md": "TESTS",
      ".cairnrules/backend/api.md": "API",
      ".cairnrules/workflows/deploy.md": "DEPLOY-WORKFLOW",
      ".cairnrules/empty.md": "  \n",
    });
    const rules = loadRules({ cwd: repo, home });
    expect(rules.sections.map((s) => s.source)).toEqual([".cairnrules/10-tests.md", ".cairnrules/20-style.md", ".cairnrules/backend/api.md"]);
    expect(rules.text).not.toContain("DEPLOY-WORKFLOW");
  });

  it("no rules anywhere: no sections and an empty text", () => {
    const rules = loadRules({ cwd: repo, home });
    expect(rules).toEqual({ sections: [], text: "", skipped: [], warnings: [], truncated: false });
  });

  it("CAIRN_HOME inside the repository is not read twice", async () => {
    await files(repo, { "AGENTS.md": "ONCE" });
    const rules = loadRules({ cwd: repo, home: repo });
    expect(rules.sections).toHaveLength(1);
    expect(rules.text.split("ONCE")).toHaveLength(2);
  });
});

describe("loadRules: paths front matter", () => {
  beforeEach(async () => {
    await files(repo, {
      ".cairnrules/tests.md": '---\npaths: ["src/**/*.test.ts", "test/**"]\n---\nTEST-RULE',
      ".cairnrules/docs.md": "---\npaths:\n  - docs/**\n---\nDOCS-RULE",
      ".cairnrules/always.md": "ALWAYS-RULE",
    });
  });

  it("a rule with paths: applies only while a matching file is in play", () => {
    const idle = loadRules({ cwd: repo, home });
    expect(idle.text).toContain("ALWAYS-RULE");
    expect(idle.text).not.toContain("TEST-RULE");
    expect(idle.text).not.toContain("DOCS-RULE");
    expect(idle.sections.find((s) => s.source === ".cairnrules/tests.md")).toMatchObject({ applies: false, appliesTo: ["src/**/*.test.ts", "test/**"] });

    const testing = loadRules({ cwd: repo, home, activePaths: ["src/util/math.test.ts"] });
    expect(testing.text).toContain("TEST-RULE");
    expect(testing.text).toContain("## .cairnrules/tests.md (for files matching src/**/*.test.ts, test/**)");
    expect(testing.text).not.toContain("DOCS-RULE");

    const absolute = loadRules({ cwd: repo, home, activePaths: [path.join(repo, "docs", "intro.md"), "/elsewhere/docs/x.md"] });
    expect(absolute.text).toContain("DOCS-RULE");
    expect(absolute.text).not.toContain("TEST-RULE");
  });

  it("malformed front matter: the rule applies always and a warning names the file", async () => {
    await files(repo, { ".cairnrules/broken.md": '---\npaths: ["src/**"\n---\nBROKEN-RULE', ".cairnrules/badglob.md": "---\npaths: src/{a,b\n---\nBADGLOB-RULE" });
    const rules = loadRules({ cwd: repo, home });
    expect(rules.text).toContain("BROKEN-RULE");
    expect(rules.text).toContain("BADGLOB-RULE");
    expect(rules.warnings).toEqual([
      expect.stringMatching(/^\.cairnrules\/badglob\.md: glob "src\/\{a,b": unclosed/),
      expect.stringMatching(/^\.cairnrules\/broken\.md: paths: .*does not close.*applies always/),
    ]);
  });
});

describe("loadRules: size cap", () => {
  it("keeps the most specific rules whole and cuts the least specific first, with a note", async () => {
    const big = (marker: string, kib: number) => `${marker}\n${"x".repeat(100)}\n`.repeat(Math.ceil((kib * 1024) / 110));
    await files(home, { "AGENTS.md": big("GLOBAL", 10) });
    await files(repo, { "AGENTS.md": big("ROOT", 12), ".cairnrules": big("CAIRN", 25) });
    const rules = loadRules({ cwd: repo, home });

    expect(rules.truncated).toBe(true);
    const [global, root, cairn] = rules.sections;
    expect(cairn).toMatchObject({ source: ".cairnrules" });
    expect(cairn?.cut).toBeUndefined();
    expect(root?.cut).toBe("shortened");
    expect(global?.cut).toBe("dropped");
    expect(rules.text).toContain(cairn?.text as string);
    expect(rules.text).not.toContain("GLOBAL");
    expect(rules.text).toContain(`[Left out to stay within 32 KiB: ${path.join(home, "AGENTS.md")}.`);
    expect(rules.text).toMatch(/\[… cut here: the rules are capped at 32 KiB in total.*The whole file is AGENTS\.md\.\]/);
    const bodyBytes = rules.sections.reduce((sum, s) => sum + (s.cut === "dropped" ? 0 : s.cut === "shortened" ? 0 : s.bytes), 0);
    expect(bodyBytes).toBeLessThanOrEqual(RULES_MAX_BYTES);
    expect(Buffer.byteLength(rules.text)).toBeLessThan(RULES_MAX_BYTES + 2048);
    expect(rules.warnings).toEqual([expect.stringMatching(/over the 32 KiB cap.*AGENTS\.md \(shortened\)/)]);
  });

  it("rules under the cap are all whole", async () => {
    await files(repo, { "AGENTS.md": "a".repeat(16 * 1024), ".cairnrules": "b".repeat(16 * 1024) });
    const rules = loadRules({ cwd: repo, home });
    expect(rules.truncated).toBe(false);
    expect(rules.sections.every((s) => s.cut === undefined)).toBe(true);
  });

  it("skips binary and oversized files, saying why", async () => {
    await files(repo, { "AGENTS.md": "ok\u0000binary", ".cursorrules": "y".repeat(1024 * 1024 + 1) });
    const rules = loadRules({ cwd: repo, home });
    expect(rules.sections).toEqual([]);
    expect(rules.skipped).toEqual([
      { source: "AGENTS.md", reason: "it is a binary file, not rules text" },
      { source: ".cursorrules", reason: expect.stringMatching(/^it is 1\.0 MB, over the 1\.0 MB such a file may be/) },
    ]);
    expect(rules.warnings).toEqual([]);
  });
});

describe("loadRules: every file is a path like any other", () => {
  const SECRET = "aws_secret_access_key=RULES-SECRET-1f3c";

  beforeEach(async () => {
    await files(base, { "outside/credentials": SECRET, "outside/id_ed25519": SECRET, "outside/notes/a.md": SECRET });
    await files(repo, { ".env": SECRET, ".cairnignore": ".env\nprivate/\n", "private/rules.md": SECRET, "private/other.md": SECRET, "docs/style.md": "IN-WORKSPACE-RULE" });
  });

  it("skips each rules name that is a symlink to a file outside the workspace, an ignored file or a hard link of one, and says why", async () => {
    await symlink(path.join(base, "outside", "credentials"), path.join(repo, "AGENTS.md"));
    await symlink(".env", path.join(repo, ".cursorrules"));
    await symlink("private/rules.md", path.join(repo, ".windsurfrules"));
    await mkdir(path.join(repo, ".clinerules"));
    await symlink(path.join(base, "outside", "id_ed25519"), path.join(repo, ".clinerules", "aws.md"));
    await link(path.join(repo, ".env"), path.join(repo, ".clinerules", "env.md"));
    await symlink(path.join(base, "outside", "notes"), path.join(repo, ".clinerules", "linked"));
    await mkdir(path.join(repo, ".cursor", "rules"), { recursive: true });
    await symlink("../../private/other.md", path.join(repo, ".cursor", "rules", "env.mdc"));
    const rules = loadRules({ cwd: repo, home });

    expect(rules.text).not.toContain("RULES-SECRET");
    expect(rules.sections).toEqual([]);
    const why = Object.fromEntries(rules.skipped.map((s) => [s.source, s.reason]));
    expect(why["AGENTS.md"]).toMatch(/^it leads outside the workspace \(to .*outside\/credentials\)/);
    expect(why[".cursorrules"]).toMatch(/blocked by \.cairnignore/);
    expect(why[".windsurfrules"]).toMatch(/blocked by \.cairnignore/);
    expect(why[".clinerules/aws.md"]).toMatch(/^it leads outside/);
    expect(why[".clinerules/env.md"]).toMatch(/hard link of a file blocked by \.cairnignore/);
    expect(why[".clinerules/linked"]).toMatch(/^it is a folder that leads outside the workspace/);
    expect(why[".cursor/rules/env.mdc"]).toMatch(/blocked by \.cairnignore/);
  });

  it("reads a symlink to a file inside the workspace that is not ignored", async () => {
    await symlink("docs/style.md", path.join(repo, "AGENTS.md"));
    await mkdir(path.join(repo, ".cairnrules"));
    await symlink("../docs/style.md", path.join(repo, ".cairnrules", "style.md"));
    const rules = loadRules({ cwd: repo, home });
    expect(rules.skipped).toEqual([]);
    expect(rules.text).toContain("IN-WORKSPACE-RULE");
  });

  it("an AGENTS.md above the workspace may lead anywhere in the repository, not out of it", async () => {
    const cwd = path.join(repo, "packages", "core");
    await mkdir(cwd, { recursive: true });
    await symlink("docs/style.md", path.join(repo, "AGENTS.md"));
    await symlink(path.join(base, "outside", "credentials"), path.join(repo, "packages", "AGENTS.md"));
    const rules = loadRules({ cwd, home });
    expect(rules.sections.map((s) => s.source)).toEqual([path.join(repo, "AGENTS.md")]);
    expect(rules.text).toContain("IN-WORKSPACE-RULE");
    expect(rules.text).not.toContain("RULES-SECRET");
    expect(rules.skipped).toEqual([{ source: path.join(repo, "packages", "AGENTS.md"), reason: expect.stringMatching(/^it leads outside the repository/) }]);
  });

  it("CAIRN_HOME/AGENTS.md must really be inside CAIRN_HOME", async () => {
    await symlink(path.join(base, "outside", "credentials"), path.join(home, "AGENTS.md"));
    const rules = loadRules({ cwd: repo, home });
    expect(rules.text).not.toContain("RULES-SECRET");
    expect(rules.skipped).toEqual([{ source: path.join(home, "AGENTS.md"), reason: expect.stringMatching(/^it leads outside CAIRN_HOME/) }]);

    await rm(path.join(home, "AGENTS.md"));
    await files(home, { "notes/global.md": "GLOBAL-FROM-A-LINK" });
    await symlink("notes/global.md", path.join(home, "AGENTS.md"));
    expect(loadRules({ cwd: repo, home }).text).toContain("GLOBAL-FROM-A-LINK");
  });
});
