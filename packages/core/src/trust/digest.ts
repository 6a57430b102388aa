import { createHash } from "node:crypto";
import { readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** What trust in one config file is bound to: its text and the workspace files its commands name. */
export type ConfigDigest = {
  /** sha256 over the text and each named file's path and content. */
  digest: string;
  /** The workspace files the commands name (relative, "/"-separated), in order. */
  files: string[];
};

/**
 * A hook `./hooks/check.sh` or a server `node tools/server.js` runs a file of the repository, so
 * trusting the config alone would let a later change to that file (a pull, or the model's own edit)
 * run unreviewed. The digest therefore covers every word of the commands that names an existing
 * file inside the workspace ($CAIRN_PROJECT_DIR and $CLAUDE_PROJECT_DIR expanded, quotes removed),
 * so a change to any of them needs trust again. Files outside the workspace (installed tools) are
 * the person's own and not covered. Neither is anything those files source or run (`. ./lib.sh`,
 * `npm run lint`): that is why workspace hooks run in the command sandbox (see hooks/).
 */
export function configDigest(cwd: string, text: string, commands: ReadonlyArray<string | readonly string[]>): ConfigDigest {
  const root = realOrSelf(cwd);
  const files: string[] = [];
  const hash = createHash("sha256").update(text, "utf8");
  for (const command of commands) {
    for (const word of typeof command === "string" ? shellWords(command) : command) {
      const file = workspaceFile(root, expandProjectDir(word, root));
      if (file === undefined || files.includes(file.relative)) continue;
      files.push(file.relative);
      hash.update(`\0${file.relative}\0`).update(file.content);
    }
  }
  return { digest: hash.digest("hex"), files };
}

/** Words of a shell command, split on blanks, with quotes removed: enough to spot file names. */
function shellWords(command: string): string[] {
  return (command.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? []).map((w) => w.replace(/["']/g, ""));
}

function expandProjectDir(word: string, root: string): string {
  return word.replace(/\$\{?(CAIRN_PROJECT_DIR|CLAUDE_PROJECT_DIR)\}?/g, root);
}

function workspaceFile(root: string, word: string): { relative: string; content: Buffer } | undefined {
  if (word === "" || word.startsWith("-")) return undefined;
  const real = realOrUndefined(path.resolve(root, word));
  if (real === undefined) return undefined;
  const relative = path.relative(root, real);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  try {
    if (!statSync(real).isFile()) return undefined;
    return { relative: relative.split(path.sep).join("/"), content: readFileSync(real) };
  } catch {
    return undefined;
  }
}

function realOrUndefined(file: string): string | undefined {
  try {
    return realpathSync.native(file);
  } catch {
    return undefined;
  }
}

function realOrSelf(dir: string): string {
  return realOrUndefined(dir) ?? path.resolve(dir);
}
