import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import type { IgnoreRules, LinkVerdict } from "../policy/ignore-rules.js";
import { isInside, realPath } from "../policy/workspace.js";
import { openedPathSync } from "../tools/files/opened-path.js";
import { formatBytes } from "../tools/text-bytes.js";

/**
 * Where a file read into the prompt (a rules file, a workflow, an agent definition) must really be:
 * - "project": inside `root` (the workspace, or the repository root for an AGENTS.md above it) and
 *   not blocked by any of `ignore` (the workspace's rules, the task's own when it has them);
 * - "home": inside the person's own CAIRN_HOME.
 */
export type PromptFileScope = { kind: "project"; root: string; ignore: readonly IgnoreRules[]; /** What `root` is to the person: "the workspace" unless said. */ rootName?: string } | { kind: "home"; home: string };

export type PromptFileRead = { ok: true; data: Buffer; real: string } | { ok: false; reason: string };

/** As the file tools open: never follow a final link swapped in after the check, never block on a FIFO or adopt a terminal. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * Reads a file Cairn puts into the prompt, held to the same boundary as the file tools, at the
 * moment of reading: these files go to the model whole, so a symlink named AGENTS.md or a workflow
 * that leads to ~/.aws/credentials or an ignored .env would hand it what read_file refuses.
 *
 * The path is resolved to its real location and judged (the scope, the ignore rules on the name
 * as written and on the real one); that real path is opened without following a final link; the
 * kernel's path of the open descriptor is judged again and its identity checked (a hard link of an
 * ignored file), all before a byte is read. `reason` is one line for the person, saying what to do.
 */
export function readPromptFile(file: string, scope: PromptFileScope, maxBytes: number): PromptFileRead {
  const real = realPath(file);
  if (real === undefined) return { ok: false, reason: "it is a loop of symlinks" };
  const before = refusal(file, real, scope);
  if (before) return { ok: false, reason: before };
  let fd: number;
  try {
    fd = openSync(real, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return { ok: false, reason: "it changed while it was being opened (a symlink was swapped in)" };
    return { ok: false, reason: `it could not be read (${(error as Error).message.split("\n")[0]})` };
  }
  try {
    const opened = openedPathSync(fd, real);
    if (opened === undefined) return { ok: false, reason: "it changed while it was being opened (a symlink was swapped in)" };
    const after = refusal(file, opened, scope);
    if (after) return { ok: false, reason: after };
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, reason: "it is not a regular file" };
    if (scope.kind === "project") {
      const linked = linkReason(scope.ignore, stats);
      if (linked) return { ok: false, reason: linked };
    }
    if (stats.size > maxBytes) return { ok: false, reason: `it is ${formatBytes(stats.size)}, over the ${formatBytes(maxBytes)} such a file may be` };
    return { ok: true, data: readFileSync(fd), real: opened };
  } catch (error) {
    return { ok: false, reason: `it could not be read (${(error as Error).message.split("\n")[0]})` };
  } finally {
    closeSync(fd);
  }
}

/** Why the file named `written`, really at `real`, may not go into the prompt; undefined when it may. */
function refusal(written: string, real: string, scope: PromptFileScope): string | undefined {
  if (scope.kind === "home") {
    const home = realPath(scope.home) ?? scope.home;
    if (isInside(home, real)) return undefined;
    return `it leads outside CAIRN_HOME (to ${real}); Cairn reads its global files only from ${home}: copy the file there instead of linking it`;
  }
  for (const rules of scope.ignore) {
    if (rules.ignoresAsWritten(written) || rules.ignoresAsWritten(real)) {
      return `it, or the file it leads to (${real}), is blocked by ${ignoreFilesOf(rules)}: an ignored file never goes to the model`;
    }
  }
  const root = realPath(scope.root) ?? scope.root;
  if (isInside(root, real)) return undefined;
  const name = scope.rootName ?? "the workspace";
  return `it leads outside ${name} (to ${real}); Cairn reads it only from inside ${name}: copy the file in instead of linking it`;
}

function linkReason(ignore: readonly IgnoreRules[], stats: Parameters<IgnoreRules["ignoresLinked"]>[0]): string | undefined {
  for (const rules of ignore) {
    const verdict: LinkVerdict = rules.ignoresLinked(stats);
    if (verdict === "ignored") return `it is a hard link of a file blocked by ${ignoreFilesOf(rules)} (the same file under another name)`;
    if (verdict === "unchecked") return `it has other names (hard links), and the workspace is too large to check them against ${ignoreFilesOf(rules)}`;
  }
  return undefined;
}

function ignoreFilesOf(rules: IgnoreRules): string {
  return rules.files.join(" / ") || ".cairnignore";
}
