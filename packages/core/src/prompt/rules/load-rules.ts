import fs from "node:fs";
import path from "node:path";
import { IgnoreRules } from "../../policy/ignore-rules.js";
import { isInside, realPath } from "../../policy/workspace.js";
import { readPromptFile, type PromptFileScope } from "../prompt-file.js";
import { compileGlob, globMatches, normalizeRelative } from "./glob.js";
import { parseFrontMatter } from "./front-matter.js";

export type RuleKind = "agents" | "cairnrules" | "clinerules" | "cursorrules" | "windsurfrules";

export type RuleSection = {
  /** The path shown to people: workspace-relative inside the workspace, else absolute. */
  source: string;
  /** Absolute path of the file. */
  path: string;
  kind: RuleKind;
  /** "global": CAIRN_HOME/AGENTS.md; "project": the repository and the workspace. */
  scope: "global" | "project";
  /** The rule's text without its front matter, whole (the prompt may carry less, see `cut`). */
  text: string;
  /** Size of `text` in UTF-8 bytes. */
  bytes: number;
  /** The rule's `paths:` globs: it applies only while a matching file is in play. */
  appliesTo?: string[];
  /** Whether it is in the prompt now (always, or a path in play matches `appliesTo`). */
  applies: boolean;
  /** Set when the size cap kept part ("shortened") or none ("dropped") of an applying rule. */
  cut?: "shortened" | "dropped";
  /** Switched off by the person (settings' rulesOff): listed, never in the prompt. */
  off?: true;
};

export type LoadedRules = {
  /** Every rules file found, from the least to the most specific (the prompt's order). */
  sections: RuleSection[];
  /** The block for the system prompt ("" when no rule applies): a header line per source. */
  text: string;
  /** Rules files found but not read, each with why (one line for the person): outside where it belongs, ignored, binary, too big. */
  skipped: SkippedRule[];
  /** Rules folders that could not be listed, malformed front matter (those rules apply always), the size cap. */
  warnings: string[];
  /** True when the size cap cut or dropped a rule. */
  truncated: boolean;
};

export type SkippedRule = { source: string; reason: string };

export type LoadRulesOptions = {
  /** The workspace (real path). */
  cwd: string;
  /** CAIRN_HOME: its AGENTS.md holds the person's global rules. */
  home: string;
  /** Workspace-relative paths mentioned or touched so far; they switch on rules with `paths:`. */
  activePaths?: readonly string[];
  /** Cap on the rules' text in the prompt, in bytes. Defaults to 32 KiB (Codex's cap). */
  maxBytes?: number;
  /** The workspace's ignore rules; a task passes its own (they keep every rule read during it). Read afresh when absent. */
  ignore?: IgnoreRules;
  /** Rules files the person switched off (settings' rulesOff, absolute paths): they stay out of the prompt. */
  off?: readonly string[];
};

export const RULES_MAX_BYTES = 32 * 1024;
/** A rules file bigger than this is a mistake (a log, a dump); it is skipped with a warning. */
const MAX_FILE_BYTES = 1024 * 1024;
/** A rules folder is read to this depth and up to this many files. */
const MAX_FOLDER_DEPTH = 4;
const MAX_FOLDER_FILES = 100;
/** Below this many bytes left, a rule is dropped rather than shortened to a stub. */
const MIN_SHORTENED_BYTES = 512;
/** Subfolders of .cairnrules / .clinerules that hold something other than rules. */
const NOT_RULES = new Set(["workflows", "hooks"]);

/** `root`: the folder a project file must really be in (the workspace, or the repository root for an AGENTS.md above it). */
type Candidate = { file: string; kind: RuleKind; scope: "global" | "project"; root?: string };

/**
 * Finds and reads the rules and memory files for a workspace, in precedence order:
 *
 * 1. CAIRN_HOME/AGENTS.md (the person's global rules);
 * 2. AGENTS.md in every folder from the repository root (nearest ancestor with `.git`; the
 *    workspace itself when there is none) down to the workspace;
 * 3. in the workspace root, other tools' files: .windsurfrules, .cursorrules, .cursor/rules/*.mdc,
 *    .clinerules (file or folder), then Cairn's own .cairnrules (file or folder).
 *
 * Later sources are more specific and win when they conflict; the prompt says so. Cairn's own
 * .cairnrules comes last: where it and a file kept for another tool disagree, Cairn's wins.
 *
 * Each file is a path like any other (see readPromptFile): a project file must really be inside
 * the workspace (an AGENTS.md above it, inside the repository) and not blocked by the ignore files,
 * the global one inside CAIRN_HOME; a symlink or hard link that leads elsewhere is skipped, with why.
 */
export function loadRules(options: LoadRulesOptions): LoadedRules {
  const warnings: string[] = [];
  const skipped: SkippedRule[] = [];
  const ignore = options.ignore ?? new IgnoreRules(options.cwd);
  const ignoreOf = ignoreFor(options.cwd, ignore);
  const maxBytes = options.maxBytes ?? RULES_MAX_BYTES;
  const active = (options.activePaths ?? []).flatMap((p) => toRelative(options.cwd, p));
  const seen = new Set<string>();
  const off = new Set((options.off ?? []).flatMap((file) => [path.resolve(file), realOrSelf(file)]));
  const sections: RuleSection[] = [];
  for (const candidate of discover(options.cwd, options.home, warnings, skipped)) {
    const identity = realOrSelf(candidate.file);
    if (seen.has(identity)) continue; // CAIRN_HOME inside the repository, a symlinked AGENTS.md
    const root = candidate.root ?? options.cwd;
    const scope: PromptFileScope =
      candidate.scope === "global" ? { kind: "home", home: options.home } : { kind: "project", root, ignore: ignoreOf(root), rootName: root === options.cwd ? "the workspace" : "the repository" };
    const skips = skipped.length;
    const section = readSection(options.cwd, candidate, scope, active, warnings, skipped);
    // A file refused under one name is refused under each: every name is listed, so none hides another.
    if (skipped.length === skips) seen.add(identity);
    if (section && (off.has(candidate.file) || off.has(identity))) {
      section.off = true;
      section.applies = false;
    }
    if (section) sections.push(section);
  }
  const { text, truncated } = assemble(sections, maxBytes);
  if (truncated) {
    const lost = sections.filter((s) => s.cut).map((s) => `${s.source} (${s.cut})`);
    warnings.push(`Rules are over the ${formatKiB(maxBytes)} cap; the more specific ones were kept whole: ${lost.join(", ")}.`);
  }
  return { sections, text, skipped, warnings, truncated };
}

/**
 * The ignore rules a project file is held to: the workspace's, and for an AGENTS.md above the
 * workspace also those of the repository root it lies in (read once per load).
 */
function ignoreFor(cwd: string, workspace: IgnoreRules): (root: string) => IgnoreRules[] {
  const others = new Map<string, IgnoreRules>();
  return (root) => {
    if (root === cwd) return [workspace];
    let rules = others.get(root);
    if (!rules) others.set(root, (rules = new IgnoreRules(root)));
    return [workspace, rules];
  };
}

/** The nearest folder at or above `cwd` that holds `.git` (a folder, or a file in worktrees). */
export function findRepositoryRoot(cwd: string): string | undefined {
  let dir = path.resolve(cwd);
  for (;;) {
    if (fs.existsSync(path.join(dir, ".git"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function discover(cwd: string, home: string, warnings: string[], skipped: SkippedRule[]): Candidate[] {
  const found: Candidate[] = [];
  const global = path.join(home, "AGENTS.md");
  if (isFile(global)) found.push({ file: global, kind: "agents", scope: "global" });

  const root = findRepositoryRoot(cwd) ?? cwd;
  for (const dir of foldersFromTo(root, cwd)) {
    const file = path.join(dir, "AGENTS.md");
    if (isFile(file)) found.push({ file, kind: "agents", scope: "project", root: dir === cwd ? cwd : root });
  }

  const inWorkspace = (name: string) => path.join(cwd, name);
  for (const [name, kind] of [
    [".windsurfrules", "windsurfrules"],
    [".cursorrules", "cursorrules"],
  ] as const) {
    if (isFile(inWorkspace(name))) found.push({ file: inWorkspace(name), kind, scope: "project" });
  }
  const cursorRules = inWorkspace(path.join(".cursor", "rules"));
  if (isDirectory(cursorRules)) {
    for (const file of filesIn(cwd, cursorRules, ".mdc", warnings, skipped)) found.push({ file, kind: "cursorrules", scope: "project" });
  }
  for (const [name, kind] of [
    [".clinerules", "clinerules"],
    [".cairnrules", "cairnrules"],
  ] as const) {
    const target = inWorkspace(name);
    if (isFile(target)) found.push({ file: target, kind, scope: "project" });
    else if (isDirectory(target)) for (const file of filesIn(cwd, target, ".md", warnings, skipped)) found.push({ file, kind, scope: "project" });
  }
  return found;
}

/** `root`, then each folder down to `leaf` (which must be inside root). */
function foldersFromTo(root: string, leaf: string): string[] {
  const relative = path.relative(root, leaf);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return [root];
  const folders = [root];
  let dir = root;
  for (const part of relative.split(path.sep)) {
    dir = path.join(dir, part);
    folders.push(dir);
  }
  return folders;
}

/**
 * Files with the extension under `dir`, sorted by their relative path; workflows/ and hooks/ left
 * out. A folder that really lies outside the workspace (a symlink to ~/) is not walked: one skip
 * names it, rather than one per file in it.
 */
function filesIn(cwd: string, dir: string, extension: string, warnings: string[], skipped: SkippedRule[]): string[] {
  const files: string[] = [];
  const workspace = realPath(cwd) ?? cwd;
  const walk = (folder: string, depth: number) => {
    const real = realPath(folder);
    if (real === undefined || !isInside(workspace, real)) {
      skipped.push({ source: shownPath(cwd, folder), reason: `it is a folder that leads outside the workspace (to ${real ?? "a loop of symlinks"}); Cairn reads rules only from inside it: copy the files in instead of linking them` });
      return;
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      warnings.push(`Could not read the rules folder ${folder}: ${(error as Error).message}`);
      return;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      const isDir = entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(full));
      if (isDir) {
        if (depth === 0 && NOT_RULES.has(entry.name)) continue;
        if (depth + 1 < MAX_FOLDER_DEPTH) walk(full, depth + 1);
      } else if (entry.name.toLowerCase().endsWith(extension) && isFile(full)) {
        files.push(full);
      }
    }
  };
  walk(dir, 0);
  const sorted = files.map((file) => ({ file, key: path.relative(dir, file).split(path.sep).join("/") })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (sorted.length > MAX_FOLDER_FILES) {
    warnings.push(`${dir} holds ${sorted.length} rules files; only the first ${MAX_FOLDER_FILES} by name are read.`);
  }
  return sorted.slice(0, MAX_FOLDER_FILES).map((s) => s.file);
}

function readSection(cwd: string, candidate: Candidate, scope: PromptFileScope, active: string[], warnings: string[], skipped: SkippedRule[]): RuleSection | undefined {
  const source = shownPath(cwd, candidate.file);
  const read = readPromptFile(candidate.file, scope, MAX_FILE_BYTES);
  if (!read.ok) {
    skipped.push({ source, reason: read.reason });
    return undefined;
  }
  const data = read.data;
  if (data.subarray(0, 8192).includes(0)) {
    skipped.push({ source, reason: "it is a binary file, not rules text" });
    return undefined;
  }
  const front = parseFrontMatter(data.toString("utf8"));
  if (front.warning) warnings.push(`${source}: ${front.warning}.`);
  const text = front.body.trim();
  if (text === "") return undefined;

  const section: RuleSection = { source, path: candidate.file, kind: candidate.kind, scope: candidate.scope, text, bytes: Buffer.byteLength(text), applies: true };
  if (front.paths && front.alwaysApply !== true) {
    const globs = front.paths.map(compileGlob);
    const broken = globs.filter((g) => "error" in g);
    if (broken.length > 0) {
      warnings.push(`${source}: ${broken.map((g) => `glob "${g.glob}": ${"error" in g ? g.error : ""}`).join("; ")}; the rule applies always.`);
      return section;
    }
    section.appliesTo = front.paths;
    section.applies = active.some((p) => globs.some((g) => globMatches(g, p)));
  } else if (candidate.file.endsWith(".mdc") && !front.paths && front.alwaysApply !== true) {
    // Cursor's "agent requested" and "manual" rules have neither globs nor alwaysApply: true.
    section.applies = false;
    section.appliesTo = [];
  }
  return section;
}

/** The prompt block: applying rules, least specific first, cut from the least specific end. */
function assemble(sections: RuleSection[], maxBytes: number): { text: string; truncated: boolean } {
  const applying = sections.filter((s) => s.applies);
  if (applying.length === 0) return { text: "", truncated: false };
  const bodies = new Map<RuleSection, string>();
  let left = maxBytes;
  for (let i = applying.length - 1; i >= 0; i--) {
    const section = applying[i] as RuleSection;
    if (section.bytes <= left) {
      bodies.set(section, section.text);
      left -= section.bytes;
      continue;
    }
    if (left >= MIN_SHORTENED_BYTES) {
      bodies.set(section, `${headOf(section.text, left)}\n[… cut here: the rules are capped at ${formatKiB(maxBytes)} in total and more specific rules come later. The whole file is ${section.source}.]`);
      section.cut = "shortened";
    } else {
      section.cut = "dropped";
    }
    left = 0;
    for (let j = i - 1; j >= 0; j--) (applying[j] as RuleSection).cut = "dropped";
    break;
  }
  const truncated = applying.some((s) => s.cut);
  const dropped = applying.filter((s) => s.cut === "dropped").map((s) => s.source);
  const parts = [
    "# Rules from the person and the project",
    "Follow these instructions. They run from the most general (the person's global rules, then the repository root) to the most specific (folders nearer the workspace, then the workspace's rules files). Where two conflict, the one listed later wins.",
  ];
  if (dropped.length > 0) parts.push(`[Left out to stay within ${formatKiB(maxBytes)}: ${dropped.join(", ")}. Read them with read_file if they matter.]`);
  for (const section of applying) {
    const body = bodies.get(section);
    if (body === undefined) continue;
    parts.push(`## ${header(section)}\n\n${body}`);
  }
  return { text: parts.join("\n\n"), truncated };
}

function header(section: RuleSection): string {
  const notes = [section.scope === "global" ? "global" : "", section.appliesTo ? `for files matching ${section.appliesTo.join(", ")}` : ""].filter((n) => n !== "");
  return notes.length > 0 ? `${section.source} (${notes.join("; ")})` : section.source;
}

/** The first `bytes` of the text, ending at a line break when one is near. */
function headOf(text: string, bytes: number): string {
  const cut = Buffer.from(text).subarray(0, bytes).toString("utf8").replace(/\uFFFD$/, "");
  const lastBreak = cut.lastIndexOf("\n");
  return lastBreak > cut.length / 2 ? cut.slice(0, lastBreak) : cut;
}

function shownPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  if (relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)) return relative.split(path.sep).join("/");
  return file;
}

/** Active paths as workspace-relative `/` paths; absolute ones outside the workspace are dropped. */
function toRelative(cwd: string, p: string): string[] {
  if (!path.isAbsolute(p)) return [normalizeRelative(p)];
  const relative = path.relative(cwd, p);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return [];
  return [relative.split(path.sep).join("/")];
}

export function formatKiB(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const kib = bytes / 1024;
  return `${Number.isInteger(kib) ? kib : kib.toFixed(1)} KiB`;
}

function isFile(file: string): boolean {
  return statOf(file)?.isFile() === true;
}

function isDirectory(dir: string): boolean {
  return statOf(dir)?.isDirectory() === true;
}

/** Follows symlinks; anything unreadable (ENOTDIR, EACCES, a dangling link) counts as absent. */
function statOf(target: string): fs.Stats | undefined {
  try {
    return fs.statSync(target, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function realOrSelf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
