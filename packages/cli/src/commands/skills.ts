import { realpathSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { cairnHome, estimateTextTokens, findRepositoryRoot, loadSkills, SKILLS_CATALOG_MAX_TOKENS, type Skill } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";

export const skillsHelp = `Usage: cairn skills [--cwd dir] [--json]

Lists the Agent Skills a task in the workspace would be offered, and those skipped, with why.
A skill is a folder holding a SKILL.md (front matter with name and description, then
instructions; optional scripts/, references/, assets/). Searched, nearest first:
  .cairn/skills, .agents/skills and .claude/skills in the workspace and in each folder above
  it up to the repository root, then CAIRN_HOME/skills (the person's, for every workspace).
When two skills have the same name, the one nearest the workspace wins.

The model's first request lists each skill's name, description and SKILL.md path (up to about
${SKILLS_CATALOG_MAX_TOKENS} tokens, nearest first); it reads a skill's files when the task needs them, without
asking inside a listed skill's folder. Each SKILL.md is read like any file the agent reads: it
must really be inside the workspace (above it, inside the repository) and not ignored, or inside
CAIRN_HOME; one that links elsewhere is skipped.

Options:
  --cwd dir     the workspace (default: the current folder)
  --json        one JSON object instead of the table`;

/** `cairn skills [--cwd dir] [--json]`: the skills a task in the workspace would be offered. */
export function skillsCommand(argv: string[], io: Io): number {
  let values: { cwd?: string | undefined; json?: boolean | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({ args: argv, strict: true, options: { cwd: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } } }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see cairn skills --help)`);
  }
  if (values.help) {
    io.stdout(`${skillsHelp}\n`);
    return 0;
  }
  const cwd = workspace(values.cwd ?? process.cwd());
  const home = cairnHome(io.env);
  const loaded = loadSkills({ cwd, home });
  const listed = new Set(loaded.listed);
  const catalogTokens = estimateTextTokens(loaded.catalog);
  const repositoryRoot = findRepositoryRoot(cwd) ?? null;

  if (values.json) {
    const skills = loaded.skills.map((s) => ({ ...s, listed: listed.has(s) }));
    io.stdout(`${JSON.stringify({ cwd, repositoryRoot, home, searched: loaded.searched, skills, skipped: loaded.skipped, catalogTokens, maxTokens: SKILLS_CATALOG_MAX_TOKENS })}\n`);
    return 0;
  }
  io.stdout(`Skills for ${cwd}${repositoryRoot === null ? " (not in a git repository)" : repositoryRoot === cwd ? "" : ` (repository root ${repositoryRoot})`}\n`);
  if (loaded.skipped.length > 0) {
    io.stdout(`\nSkipped (not offered to the model):\n`);
    for (const skip of loaded.skipped) io.stdout(`  ${skip.source}: ${skip.reason}.\n`);
  }
  if (loaded.skills.length === 0) {
    io.stdout(
      loaded.skipped.length > 0
        ? `\nNo skills offered.\n`
        : `\nNo skills found. Put a skill folder (with a SKILL.md) in .agents/skills or .cairn/skills in the workspace, or in ${home}/skills for every workspace.\n`,
    );
    return 0;
  }
  const rows = loaded.skills.map((s) => [s.name, s.scope, !listed.has(s) ? "no (over the cap)" : s.freeReads ? "yes" : "yes (reads asked: the repository ignores files in it)", s.source]);
  const header = ["name", "scope", "listed", "SKILL.md"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => `  ${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join("  ")}\n`;
  io.stdout(`\n${line(header)}`);
  for (const row of rows) io.stdout(line(row));
  io.stdout(`\n${loaded.skills.map(describe).join("")}`);
  io.stdout(`\nIn the prompt: ${listed.size} of ${loaded.skills.length} skill${loaded.skills.length === 1 ? "" : "s"}, about ${catalogTokens} tokens (the list is capped at about ${SKILLS_CATALOG_MAX_TOKENS}).\n`);
  if (loaded.skills.some((s) => s.scope === "global")) {
    io.stdout("Commands in the sandbox do not see CAIRN_HOME: a global skill's scripts run only with the sandbox off, or copied into the workspace.\n");
  }
  return 0;
}

function describe(skill: Skill): string {
  const extra = [skill.license ? `license: ${skill.license}` : "", skill.compatibility ? `compatibility: ${skill.compatibility}` : "", skill.allowedTools ? `allowed-tools (not enforced): ${skill.allowedTools}` : ""].filter((e) => e !== "");
  return `  ${skill.name}: ${skill.description.replace(/\s+/g, " ")}\n${extra.map((e) => `    ${e}\n`).join("")}`;
}

function workspace(dir: string): string {
  const stats = statSync(dir, { throwIfNoEntry: false });
  if (!stats?.isDirectory()) throw new UsageError(`--cwd ${dir}: no such folder. Give the workspace folder.`);
  return realpathSync(dir);
}
