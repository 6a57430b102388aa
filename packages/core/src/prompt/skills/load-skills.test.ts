import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSkills } from "./load-skills.js";
import { parseSkillFile } from "./skill-front-matter.js";
import { skillNameProblem } from "./skill-name.js";

let base: string;
let home: string;
let repo: string;
let ws: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-skills-")));
  home = path.join(base, "home");
  repo = path.join(base, "repo");
  ws = path.join(repo, "packages", "app");
  await mkdir(home);
  await mkdir(path.join(repo, ".git"), { recursive: true });
  await mkdir(ws, { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function skill(dir: string, folder: string, text: string): Promise<string> {
  const file = path.join(dir, folder, "SKILL.md");
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

const md = (name: string, description: string, body = "BODY") => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

describe("parseSkillFile", () => {
  it("reads plain, quoted, folded and literal scalars, a run-on plain scalar and the metadata map", () => {
    const parsed = parseSkillFile(
      [
        "---",
        "name: pdf-forms",
        "description: >",
        "  Fills PDF forms.",
        "  Use when a form is given.",
        'license: "Apache-2.0" # a comment',
        "compatibility: needs python3",
        "  and pdftk",
        "allowed-tools: 'Bash(python3:*) Read'",
        "metadata:",
        "  author: example",
        '  version: "1.0"',
        "notes: |",
        "  line one",
        "  line two",
        "---",
        "# Body",
      ].join("\n"),
    );
    expect(parsed).toEqual({
      ok: true,
      front: {
        fields: { name: "pdf-forms", description: "Fills PDF forms. Use when a form is given.\n", license: "Apache-2.0", compatibility: "needs python3 and pdftk", "allowed-tools": "Bash(python3:*) Read", notes: "line one\nline two\n" },
        metadata: { author: "example", version: "1.0" },
        body: "# Body",
      },
    });
  });

  it.each([
    ["no front matter", "# Just a body", "does not begin with front matter"],
    ["an unclosed block", "---\nname: a\ndescription: b\n", "never closed"],
    ["a line that is not key: value", "---\nname: a\nthis is prose\n---\n", "line 3 is not"],
    ["a key twice", "---\nname: a\nname: b\n---\n", '"name" twice'],
    ["an open quote", '---\nname: a\ndescription: "never closed\n---\n', "never closed"],
    ["a list where a text belongs", "---\nname: a\ndescription: [x, y]\n---\n", "a list or mapping"],
  ])("%s is an error, not a guess", (_what, text, reason) => {
    const parsed = parseSkillFile(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.reason).toContain(reason);
  });
});

describe("skill names", () => {
  it.each(["a", "pdf-forms", "v2-release-notes", "x".repeat(64)])("%s is valid in a folder of its name", (name) => {
    expect(skillNameProblem(name, name)).toBeUndefined();
  });
  it.each([
    ["PDF-Forms", "lowercase"],
    ["-pdf", "lowercase"],
    ["pdf-", "lowercase"],
    ["pdf--forms", "lowercase"],
    ["pdf_forms", "lowercase"],
    ["pdf forms", "lowercase"],
    ["x".repeat(65), "over the 64"],
    ["", "missing"],
  ])("%s is refused", (name, reason) => {
    expect(skillNameProblem(name, name)).toContain(reason);
  });
  it("must be the folder's name", () => {
    expect(skillNameProblem("pdf-forms", "forms")).toContain('its folder is "forms"');
  });
});

describe("loadSkills", () => {
  it("finds the workspace's three folders, those above it up to the repository root and CAIRN_HOME's, nearest first, with bodies only on disk", async () => {
    await skill(path.join(ws, ".cairn", "skills"), "one", md("one", "ONE-DESC", "ONE-BODY"));
    await skill(path.join(ws, ".agents", "skills"), "two", md("two", "TWO-DESC"));
    await skill(path.join(ws, ".claude", "skills"), "three", md("three", "THREE-DESC"));
    await skill(path.join(repo, ".agents", "skills"), "root-skill", md("root-skill", "ROOT-DESC"));
    await skill(path.join(base, ".agents", "skills"), "above-repo", md("above-repo", "ABOVE-DESC"));
    await skill(path.join(home, "skills"), "global-skill", md("global-skill", "GLOBAL-DESC"));
    const loaded = loadSkills({ cwd: ws, home });
    expect(loaded.skipped).toEqual([]);
    expect(loaded.skills.map((s) => [s.name, s.scope, s.source])).toEqual([
      ["one", "project", ".cairn/skills/one/SKILL.md"],
      ["two", "project", ".agents/skills/two/SKILL.md"],
      ["three", "project", ".claude/skills/three/SKILL.md"],
      ["root-skill", "project", path.join(repo, ".agents", "skills", "root-skill", "SKILL.md")],
      ["global-skill", "global", path.join(home, "skills", "global-skill", "SKILL.md")],
    ]);
    expect(loaded.skills[4]!.folder).toBe(path.join(home, "skills", "global-skill"));
    for (const text of ["ONE-DESC", "ROOT-DESC", "GLOBAL-DESC", ".cairn/skills/one/SKILL.md"]) expect(loaded.catalog).toContain(text);
    expect(loaded.catalog).not.toContain("ONE-BODY");
    expect(loaded.catalog).not.toContain("ABOVE-DESC");
  });

  it("no skills: no catalog", () => {
    expect(loadSkills({ cwd: ws, home })).toMatchObject({ skills: [], skipped: [], catalog: "" });
  });

  it("a bad name, broken front matter, a missing description, a name twice: each skipped with one reason, the rest kept; the nearest of two names wins", async () => {
    await skill(path.join(ws, ".agents", "skills"), "Bad_Name", md("Bad_Name", "d"));
    await skill(path.join(ws, ".agents", "skills"), "broken", "---\nname: broken\ndescription: \"open\n---\n");
    await skill(path.join(ws, ".agents", "skills"), "quiet", "---\nname: quiet\n---\nbody");
    await skill(path.join(ws, ".agents", "skills"), "good", md("good", "GOOD-NEAR"));
    await skill(path.join(home, "skills"), "good", md("good", "GOOD-GLOBAL"));
    const loaded = loadSkills({ cwd: ws, home });
    expect(loaded.skills.map((s) => s.description)).toEqual(["GOOD-NEAR"]);
    const reasons = Object.fromEntries(loaded.skipped.map((s) => [path.basename(path.dirname(s.source)), s.reason]));
    expect(Object.keys(reasons).sort()).toEqual(["Bad_Name", "broken", "good", "quiet"]);
    expect(reasons.Bad_Name).toContain("lowercase");
    expect(reasons.broken).toContain("never closed");
    expect(reasons.quiet).toContain('"description" is missing');
    expect(reasons.good).toContain("comes first (.agents/skills/good/SKILL.md)");
  });

  it("a SKILL.md or a skill folder that links outside is skipped; one skill reached through a linked skills folder is read once", async () => {
    await writeFile(path.join(base, "secret.md"), md("leak", "SECRET"));
    await mkdir(path.join(ws, ".agents", "skills", "leak"), { recursive: true });
    await symlink(path.join(base, "secret.md"), path.join(ws, ".agents", "skills", "leak", "SKILL.md"));
    await skill(path.join(base, "elsewhere"), "away", md("away", "AWAY"));
    await symlink(path.join(base, "elsewhere", "away"), path.join(ws, ".agents", "skills", "away"));
    await skill(path.join(base, "elsewhere"), "home-away", md("home-away", "HOME-AWAY"));
    await mkdir(path.join(home, "skills"));
    await symlink(path.join(base, "elsewhere", "home-away"), path.join(home, "skills", "home-away"));
    await skill(path.join(ws, ".agents", "skills"), "shared", md("shared", "SHARED"));
    await mkdir(path.join(ws, ".claude"));
    await symlink(path.join(ws, ".agents", "skills"), path.join(ws, ".claude", "skills"));
    const loaded = loadSkills({ cwd: ws, home });
    expect(loaded.skills.map((s) => s.name)).toEqual(["shared"]);
    expect(loaded.catalog).not.toContain("SECRET");
    const skipped = loaded.skipped.map((s) => `${s.source}: ${s.reason}`);
    expect(skipped.some((s) => s.startsWith(".agents/skills/leak/SKILL.md: it leads outside the workspace"))).toBe(true);
    expect(skipped.some((s) => s.startsWith(".agents/skills/away/SKILL.md: its folder leads outside the workspace"))).toBe(true);
    expect(skipped.some((s) => s.includes("home-away") && s.includes("its folder leads outside CAIRN_HOME"))).toBe(true);
  });

  it("a skill above the workspace in whose folder the repository's ignore files block a file is listed, but its reads stay asked", async () => {
    await writeFile(path.join(repo, ".cairnignore"), "**/private-notes.md\n");
    await skill(path.join(repo, ".agents", "skills"), "guarded", md("guarded", "GUARDED"));
    await writeFile(path.join(repo, ".agents", "skills", "guarded", "private-notes.md"), "private\n");
    await skill(path.join(repo, ".agents", "skills"), "open", md("open", "OPEN"));
    await skill(path.join(home, "skills"), "global-one", md("global-one", "G"));
    const loaded = loadSkills({ cwd: ws, home });
    expect(loaded.listed.map((s) => [s.name, s.freeReads])).toEqual([
      ["guarded", false],
      ["open", true],
      ["global-one", true],
    ]);
  });

  it("an ignored SKILL.md is skipped", async () => {
    await writeFile(path.join(ws, ".cairnignore"), ".agents/skills/private/\n");
    await skill(path.join(ws, ".agents", "skills"), "private", md("private", "PRIVATE"));
    const loaded = loadSkills({ cwd: ws, home });
    expect(loaded.skills).toEqual([]);
    expect(loaded.skipped[0]!.reason).toContain("blocked by .cairnignore");
  });

  it("past the token cap, the skills nearest the workspace are listed and the rest counted", async () => {
    for (let i = 0; i < 12; i++) await skill(path.join(ws, ".agents", "skills"), `s${String(i).padStart(2, "0")}`, md(`s${String(i).padStart(2, "0")}`, "word ".repeat(60).trim()));
    const loaded = loadSkills({ cwd: ws, home, maxTokens: 600 });
    expect(loaded.skills).toHaveLength(12);
    expect(loaded.listed.length).toBeGreaterThan(0);
    expect(loaded.listed.length).toBeLessThan(12);
    expect(loaded.listed.map((s) => s.name)).toEqual(loaded.skills.slice(0, loaded.listed.length).map((s) => s.name));
    expect(loaded.catalog).toContain(`${12 - loaded.listed.length} more skills are not listed`);
    expect(loaded.catalog).not.toContain(`- ${loaded.skills[11]!.name}:`);
  });
});
