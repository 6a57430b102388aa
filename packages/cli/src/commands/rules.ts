import { realpathSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { cairnHome, findRepositoryRoot, formatKiB, loadRules, loadSettings, RULES_MAX_BYTES, SettingsError, type RuleSection } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";

export const rulesHelp = `Usage: cairn rules [--cwd dir] [--path file]... [--json]

Lists the rules and memory files Cairn would put in the system prompt for a workspace, from
the most general to the most specific (later ones win when they conflict):
  CAIRN_HOME/AGENTS.md, AGENTS.md from the repository root down to the workspace, then in the
  workspace .windsurfrules, .cursorrules, .cursor/rules/*.mdc, .clinerules and .cairnrules
  (a file, or a folder of .md files; its workflows/ folder is not rules).
A file listed in settings.json's rulesOff (the web page's Settings view switches them) is shown
"off" and left out of the prompt.

Each is read like any file the agent reads: a project file must really be inside the workspace
(an AGENTS.md above it, inside the repository) and not blocked by .cairnignore/.clineignore, and
CAIRN_HOME/AGENTS.md inside CAIRN_HOME. A symlink or hard link that leads elsewhere is skipped,
and listed here with why.

Options:
  --cwd dir     the workspace (default: the current folder)
  --path file   a workspace-relative file to treat as in play, to see which rules with
                "paths:" front matter it switches on (repeatable)
  --json        one JSON object instead of the table`;

/** `cairn rules [--cwd dir] [--path file]... [--json]`: what rules a task in the workspace would get. */
export function rulesCommand(argv: string[], io: Io): number {
  let values: { cwd?: string | undefined; path?: string[] | undefined; json?: boolean | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: { cwd: { type: "string" }, path: { type: "string", multiple: true }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see cairn rules --help)`);
  }
  if (values.help) {
    io.stdout(`${rulesHelp}\n`);
    return 0;
  }
  const cwd = workspace(values.cwd ?? process.cwd());
  const home = cairnHome(io.env);
  const activePaths = values.path ?? [];
  const rules = loadRules({ cwd, home, activePaths, off: rulesOff(home, io) });
  const promptBytes = Buffer.byteLength(rules.text);
  const repositoryRoot = findRepositoryRoot(cwd) ?? null;

  if (values.json) {
    const sections = rules.sections.map(({ text: _text, ...rest }) => rest);
    io.stdout(`${JSON.stringify({ cwd, repositoryRoot, home, activePaths, sections, skipped: rules.skipped, promptBytes, maxBytes: RULES_MAX_BYTES, truncated: rules.truncated, warnings: rules.warnings })}\n`);
    return 0;
  }
  for (const warning of rules.warnings) io.stderr(`cairn: ${warning}\n`);
  io.stdout(`Rules for ${cwd}${repositoryRoot === null ? " (not in a git repository)" : repositoryRoot === cwd ? "" : ` (repository root ${repositoryRoot})`}\n`);
  if (rules.skipped.length > 0) {
    io.stdout(`\nSkipped (not in the prompt):\n`);
    for (const skip of rules.skipped) io.stdout(`  ${skip.source}: ${skip.reason}.\n`);
  }
  if (rules.sections.length === 0) {
    if (rules.skipped.length > 0) {
      io.stdout(`\nNo rules files in the prompt.\n`);
      return 0;
    }
    io.stdout(`\nNo rules files found. Write instructions for Cairn in AGENTS.md or .cairnrules in the workspace, or in ${home}/AGENTS.md for every workspace.\n`);
    return 0;
  }
  const rows = rules.sections.map((s) => [s.kind, formatKiB(s.bytes), appliesNow(s), s.source + details(s)]);
  const header = ["kind", "size", "applies", "source"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => `  ${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join("  ")}\n`;
  io.stdout(`\n${line(header)}`);
  for (const row of rows) io.stdout(line(row));
  const used = rules.sections.filter((s) => s.applies && s.cut !== "dropped").length;
  io.stdout(`\nIn the prompt: ${formatKiB(promptBytes)} (${used} of ${rules.sections.length} file${rules.sections.length === 1 ? "" : "s"}; rule text is capped at ${formatKiB(RULES_MAX_BYTES)}).\n`);
  if (rules.sections.some((s) => s.appliesTo && s.appliesTo.length > 0 && !s.applies) && activePaths.length === 0) {
    io.stdout("Rules with paths: apply once a matching file is mentioned or touched; try --path <file>.\n");
  }
  return 0;
}

/** The rules files the person switched off; a broken settings.json is said once, and then none are. */
function rulesOff(home: string, io: Io): string[] {
  try {
    return loadSettings(home).rulesOff ?? [];
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    io.stderr(`cairn: ${error.message} (rules switched off there are listed as on)\n`);
    return [];
  }
}

function appliesNow(section: RuleSection): string {
  if (section.off) return "off";
  if (section.cut === "dropped") return "dropped";
  if (section.cut === "shortened") return "cut";
  if (!section.appliesTo) return "always";
  if (section.appliesTo.length === 0) return "manual";
  return section.applies ? "yes" : "no";
}

function details(section: RuleSection): string {
  const parts: string[] = [];
  if (section.scope === "global") parts.push("global");
  if (section.appliesTo && section.appliesTo.length > 0) parts.push(`paths: ${section.appliesTo.join(", ")}`);
  if (section.appliesTo && section.appliesTo.length === 0) parts.push("a Cursor rule without globs or alwaysApply: only when asked for");
  return parts.length > 0 ? `  (${parts.join("; ")})` : "";
}

function workspace(dir: string): string {
  const stats = statSync(dir, { throwIfNoEntry: false });
  if (!stats?.isDirectory()) throw new UsageError(`--cwd ${dir}: no such folder. Give the workspace folder.`);
  return realpathSync(dir);
}
