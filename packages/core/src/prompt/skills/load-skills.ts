import fs from "node:fs";
import path from "node:path";
import { IgnoreRules } from "../../policy/ignore-rules.js";
import { isInside, realPath } from "../../policy/workspace.js";
import { readPromptFile, type PromptFileScope } from "../prompt-file.js";
import { findRepositoryRoot } from "../rules/load-rules.js";
import { skillCatalog, SKILLS_CATALOG_MAX_TOKENS } from "./skill-catalog.js";
import { parseSkillFile } from "./skill-front-matter.js";
import { skillDescriptionProblem, skillNameProblem } from "./skill-name.js";

export type Skill = {
  name: string;
  /** As the front matter gives it, trimmed. */
  description: string;
  /** The SKILL.md as found (absolute). */
  file: string;
  /** How the catalog and `cairn skills` name the SKILL.md: workspace-relative inside the workspace, else absolute. */
  source: string;
  /** The real path of the skill's folder: reads inside it need no approval while the skill is listed (and `freeReads`). */
  folder: string;
  /**
   * Whether reads in the folder may go unasked. Not for a skill above the workspace in whose folder
   * the repository's ignore files block something: the file tools hold reads to the workspace's
   * ignore files only, so such a folder's reads stay asked, as outside the workspace.
   */
  freeReads: boolean;
  /** "global": CAIRN_HOME/skills; "project": the workspace and the folders above it up to the repository root. */
  scope: "global" | "project";
  license?: string;
  compatibility?: string;
  /** The format's experimental `allowed-tools`, as written; Cairn shows it but grants nothing by it. */
  allowedTools?: string;
  metadata?: Record<string, string>;
};

export type SkippedSkill = { source: string; reason: string };

export type LoadedSkills = {
  /** Every valid skill, in precedence order (nearest the workspace first, CAIRN_HOME last). */
  skills: Skill[];
  /** The skills the catalog lists (all of `skills` unless the cap left some out). */
  listed: Skill[];
  /** Skills found but not usable, each with why: one notice each. */
  skipped: SkippedSkill[];
  /** The block for the system prompt; "" when there is no skill, so the prompt is then as without skills. */
  catalog: string;
  /** The folders searched, in precedence order. */
  searched: string[];
};

export type LoadSkillsOptions = {
  /** The workspace (real path). */
  cwd: string;
  /** CAIRN_HOME: its skills/ folder holds the person's skills for every workspace. */
  home: string;
  /** The workspace's ignore rules (a task passes its own); read afresh when absent. */
  ignore?: IgnoreRules;
  /** The catalog's cap in estimated tokens (default SKILLS_CATALOG_MAX_TOKENS). */
  maxTokens?: number;
};

/** Where a workspace keeps skills, in the order a folder's own are searched: Cairn's, the shared convention's, Claude Code's. */
export const SKILL_FOLDERS = [".cairn/skills", ".agents/skills", ".claude/skills"] as const;
/** A SKILL.md is instructions; bigger than this it is a mistake (the format suggests well under 5,000 tokens). */
const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** A skills folder is read up to this many skills, by name. */
const MAX_SKILLS_PER_FOLDER = 200;
/** A skill folder above the workspace is checked against the repository's ignore files up to this many entries; a bigger one is not read unasked. */
const MAX_CHECKED_ENTRIES = 2000;

type Root = { dir: string; scope: PromptFileScope; kind: "global" | "project" };

/**
 * The Agent Skills a task in `cwd` can use. Searched, nearest first: in the workspace and each
 * folder above it up to the repository root, `.cairn/skills`, `.agents/skills` and `.claude/skills`;
 * then CAIRN_HOME/skills. Each subfolder holding a SKILL.md is a skill. When two give the same
 * name, the one found first (nearest the workspace) wins and the other is skipped with a notice.
 *
 * Every SKILL.md is a path like any other (readPromptFile): a project one must really be inside the
 * workspace (above it, inside the repository) and not ignored, a global one inside CAIRN_HOME; a
 * skill folder that leads elsewhere is skipped too, since reads inside a listed one need no approval.
 */
export function loadSkills(options: LoadSkillsOptions): LoadedSkills {
  const skipped: SkippedSkill[] = [];
  const skills: Skill[] = [];
  const byName = new Map<string, Skill>();
  const seenFiles = new Set<string>();
  const roots = skillRoots(options);
  for (const root of roots) {
    for (const folder of skillFolders(root.dir, skipped, options.cwd)) {
      const file = path.join(folder, "SKILL.md");
      const source = shownPath(options.cwd, file);
      const real = realPath(file);
      // The same skill reached twice (.claude/skills linked to .agents/skills, CAIRN_HOME in the repository): once.
      if (real !== undefined && seenFiles.has(real)) continue;
      const found = readSkill(folder, file, source, root);
      if ("reason" in found) {
        skipped.push({ source, reason: found.reason });
        continue;
      }
      if (real !== undefined) seenFiles.add(real);
      const winner = byName.get(found.name);
      if (winner) {
        skipped.push({ source, reason: `another skill named "${found.name}" comes first (${winner.source}): the one nearest the workspace wins, CAIRN_HOME's last; rename one to use both` });
        continue;
      }
      byName.set(found.name, found);
      skills.push(found);
    }
  }
  const { text, listed } = skillCatalog(skills, options.maxTokens ?? SKILLS_CATALOG_MAX_TOKENS);
  return { skills, listed, skipped, catalog: text, searched: roots.map((r) => r.dir) };
}

/** The skills folders that exist, nearest the workspace first. */
function skillRoots(options: LoadSkillsOptions): Root[] {
  const workspaceIgnore = options.ignore ?? new IgnoreRules(options.cwd);
  const repository = findRepositoryRoot(options.cwd) ?? options.cwd;
  let repositoryIgnore: IgnoreRules | undefined;
  const roots: Root[] = [];
  for (const dir of foldersUpTo(options.cwd, repository)) {
    for (const name of SKILL_FOLDERS) {
      const skillsDir = path.join(dir, name);
      if (!isDirectory(skillsDir)) continue;
      const scope: PromptFileScope =
        dir === options.cwd
          ? { kind: "project", root: options.cwd, ignore: [workspaceIgnore] }
          : { kind: "project", root: repository, ignore: [workspaceIgnore, (repositoryIgnore ??= new IgnoreRules(repository))], rootName: "the repository" };
      roots.push({ dir: skillsDir, scope, kind: "project" });
    }
  }
  const global = path.join(options.home, "skills");
  if (isDirectory(global)) roots.push({ dir: global, scope: { kind: "home", home: options.home }, kind: "global" });
  return roots;
}

/** `leaf`, then each folder above it up to `root` (when `leaf` is inside it). */
function foldersUpTo(leaf: string, root: string): string[] {
  const relative = path.relative(root, leaf);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return [leaf];
  const folders = [leaf];
  for (let dir = leaf; dir !== root; ) {
    dir = path.dirname(dir);
    folders.push(dir);
  }
  return folders;
}

/** The subfolders of a skills folder that hold a SKILL.md, by name; the rest of its entries are not skills. */
function skillFolders(dir: string, skipped: SkippedSkill[], cwd: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    skipped.push({ source: shownPath(cwd, dir), reason: `the folder could not be listed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` });
    return [];
  }
  const folders = entries
    .filter((e) => !e.name.startsWith(".") && (e.isDirectory() || e.isSymbolicLink()))
    .map((e) => path.join(dir, e.name))
    .filter((folder) => exists(path.join(folder, "SKILL.md")))
    .sort();
  if (folders.length > MAX_SKILLS_PER_FOLDER) {
    skipped.push({ source: shownPath(cwd, dir), reason: `it holds ${folders.length} skills; only the first ${MAX_SKILLS_PER_FOLDER} by name are read` });
  }
  return folders.slice(0, MAX_SKILLS_PER_FOLDER);
}

function readSkill(folder: string, file: string, source: string, root: Root): Skill | { reason: string } {
  // Reads inside a listed skill's folder need no approval: the folder itself must really be where the SKILL.md must be.
  const realFolder = realPath(folder);
  const within = root.scope.kind === "home" ? root.scope.home : root.scope.root;
  const withinReal = realPath(within) ?? within;
  if (realFolder === undefined || !isInside(withinReal, realFolder)) {
    const where = root.scope.kind === "home" ? "CAIRN_HOME" : root.scope.rootName ?? "the workspace";
    return { reason: `its folder leads outside ${where} (to ${realFolder ?? "a loop of symlinks"}); Cairn reads skills only from inside it: copy the skill in instead of linking it` };
  }
  const read = readPromptFile(file, root.scope, MAX_SKILL_FILE_BYTES);
  if (!read.ok) return { reason: read.reason };
  if (read.data.subarray(0, 8192).includes(0)) return { reason: "it is a binary file, not a SKILL.md" };
  const parsed = parseSkillFile(read.data.toString("utf8"));
  if (!parsed.ok) return { reason: parsed.reason };
  const { fields, metadata } = parsed.front;
  const name = (fields.name ?? "").trim();
  const nameProblem = skillNameProblem(name, path.basename(folder));
  if (nameProblem) return { reason: nameProblem };
  const descriptionProblem = skillDescriptionProblem(fields.description);
  if (descriptionProblem) return { reason: descriptionProblem };
  const optional = (key: string) => (fields[key]?.trim() ? fields[key].trim() : undefined);
  const license = optional("license");
  const compatibility = optional("compatibility");
  const allowedTools = optional("allowed-tools");
  return {
    name: name.normalize("NFKC"),
    description: (fields.description as string).trim(),
    file,
    source,
    folder: realFolder,
    freeReads: root.scope.kind === "home" || root.scope.ignore.slice(1).every((rules) => !ignoresInside(rules, folder, realFolder)),
    scope: root.kind,
    ...(license ? { license } : {}),
    ...(compatibility ? { compatibility } : {}),
    ...(allowedTools ? { allowedTools } : {}),
    ...(metadata ? { metadata } : {}),
  };
}

/** Whether `rules` block anything in the folder (as written or where it really is); true too when it is too big to tell. */
function ignoresInside(rules: IgnoreRules, folder: string, realFolder: string): boolean {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(realFolder, { withFileTypes: true, recursive: true });
  } catch {
    return true;
  }
  if (entries.length > MAX_CHECKED_ENTRIES) return true;
  if (rules.ignoresAsWritten(folder) || rules.ignoresAsWritten(realFolder)) return true;
  return entries.some((entry) => {
    const relative = path.relative(realFolder, path.join(entry.parentPath, entry.name));
    return rules.ignoresAsWritten(path.join(folder, relative)) || rules.ignoresAsWritten(path.join(realFolder, relative));
  });
}

function shownPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  if (relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)) return relative.split(path.sep).join("/");
  return file;
}

function isDirectory(dir: string): boolean {
  try {
    return fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Present under that name, whatever it is or leads to (a dangling link too: readSkill says why it is skipped). */
function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
