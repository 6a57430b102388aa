import { readdir } from "node:fs/promises";
import path from "node:path";
import { IgnoreRules } from "@cairn/core";

/** A command the / menu offers: its name, what it takes, and a line saying what it does. */
export type SlashCommand = { name: string; args: string; description: string };

export type CompletionItem = { label: string; replacement: string; detail?: string };

/** Suggestions for the word at the cursor, and the span of text a pick replaces. */
export type Completion = { items: CompletionItem[]; from: number; to: number };

const MAX_ITEMS = 8;
const SKIPPED_DIRS = new Set([".git", "node_modules", ".hg", ".svn", "dist", "build", "out", "target", ".next", ".nuxt", ".venv", "venv", "__pycache__", ".cache", "coverage"]);

/**
 * The workspace's files and folders for @-completion: listed once, in the background, when first
 * needed; bounded (big trees are cut, not waited for) and without what .cairnignore hides.
 */
export class FileIndex {
  private entries: string[] | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly cwd: string,
    private readonly limit = 20_000,
  ) {}

  get ready(): boolean {
    return this.entries !== undefined;
  }

  /** Paths relative to the workspace, with "/" after folders; empty until loaded. */
  get paths(): readonly string[] {
    return this.entries ?? [];
  }

  load(): Promise<void> {
    this.loading ??= this.scan().then((entries) => {
      this.entries = entries;
    });
    return this.loading;
  }

  private async scan(): Promise<string[]> {
    const ignore = new IgnoreRules(this.cwd);
    const found: string[] = [];
    const queue: string[] = [""];
    while (queue.length > 0 && found.length < this.limit) {
      const dir = queue.shift()!;
      let names;
      try {
        names = await readdir(path.join(this.cwd, dir), { withFileTypes: true });
      } catch {
        continue;
      }
      names.sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of names) {
        const relative = dir === "" ? entry.name : `${dir}/${entry.name}`;
        if (ignore.ignores(path.join(this.cwd, relative))) continue;
        if (entry.isDirectory()) {
          if (SKIPPED_DIRS.has(entry.name)) continue;
          found.push(`${relative}/`);
          queue.push(relative);
        } else {
          found.push(relative);
        }
        if (found.length >= this.limit) break;
      }
    }
    return found;
  }
}

function mentionFor(file: string, finished: boolean): string {
  const target = /\s/.test(file) ? `@"${file}"` : `@/${file}`;
  return finished ? `${target} ` : target;
}

function rank(file: string, query: string): number {
  const lower = file.toLowerCase();
  const base = path.posix.basename(file.replace(/\/$/, "")).toLowerCase();
  if (lower.startsWith(query)) return 0;
  if (base.startsWith(query)) return 1;
  if (lower.includes(query)) return 2;
  return -1;
}

/** Suggestions at the cursor: slash commands at the start of the message, files after an @. */
export function completionsAt(text: string, cursor: number, commands: readonly SlashCommand[], files: FileIndex | undefined): Completion | undefined {
  const before = text.slice(0, cursor);
  const slash = /^\/(\S*)$/.exec(before);
  if (slash) {
    const typed = slash[1]!.toLowerCase();
    const items = commands
      .filter((c) => c.name.startsWith(typed))
      .map((c) => ({ label: `/${c.name}${c.args ? ` ${c.args}` : ""}`, replacement: `/${c.name} `, detail: c.description }));
    return items.length > 0 ? { items, from: 0, to: cursor } : undefined;
  }
  const mention = /(^|[\s([{"'])@("?)([^\s"]*)$/.exec(before);
  if (!mention || !files) return undefined;
  const query = mention[3]!.replace(/^\/+/, "").toLowerCase();
  const from = cursor - mention[2]!.length - mention[3]!.length - 1;
  let end = cursor;
  while (end < text.length && !/\s/.test(text[end]!)) end++;
  const ranked: Array<{ file: string; score: number }> = [];
  for (const file of files.paths) {
    const score = rank(file, query);
    if (score >= 0) ranked.push({ file, score });
  }
  ranked.sort((a, b) => a.score - b.score || a.file.split("/").length - b.file.split("/").length || a.file.localeCompare(b.file));
  const spaceFollows = end < text.length;
  const items = ranked.slice(0, MAX_ITEMS).map(({ file }) => ({ label: file, replacement: mentionFor(file, !file.endsWith("/") && !spaceFollows) }));
  return items.length > 0 ? { items, from, to: end } : undefined;
}
