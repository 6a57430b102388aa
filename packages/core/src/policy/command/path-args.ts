import { isOutsideWorkspace, leavesWorkspace, namesProtectedPath } from "./paths.js";
import type { CommandView, RiskContext } from "./risk-checks.js";
import { staticValue, type Word } from "./words.js";

/**
 * Arguments that name files outside the workspace, for reading or writing: `cat /proc/self/environ`,
 * `cp -t/out f`, `sort -o /out/f`, `tar -C /out -xf a.tar`, `dd of=/out`, `curl -d @/etc/passwd`,
 * `curl file:///etc/passwd`, `ls ~`, and a cd out of the workspace. Option values count in every
 * spelling (`-t/out`, `-Dt /out`, `--output=/out`), so no list of write options can fall behind.
 * Reading outside can hand secrets to the model (the agent's environment through /proc/$PPID), so
 * it needs approval like writing does.
 *
 * An argument computed at run time ($F, $(…)) may name any path, so it needs approval too. A
 * pattern (*.ts) expands to names in the folder it is written in, so it only counts when its
 * fixed part leaves the workspace, or when it starts the word: a file named like an option
 * (--target-directory=..) would then become one.
 */
export function outsidePath(view: CommandView, context: RiskContext): string | undefined {
  const { name } = view;
  if (name === undefined || textOnly.has(name)) return undefined;
  if (leavesWorkspace(name, view.args, context.cwd)) return `${name} changes to a directory outside the workspace`;
  const skip = notPaths(view);
  let optionsDone = false;
  for (const [i, word] of view.argWords.entries()) {
    const value = staticValue(word);
    if (value === "--") optionsDone = true;
    if (skip.has(i)) continue;
    if (value === undefined) {
      const reason = computedWord(word, view, context, optionsDone);
      if (reason !== undefined) return reason;
      continue;
    }
    for (const candidate of candidates(value)) {
      if (isOutsideWorkspace(context.cwd, candidate, context.uncertainCwd)) return `${name} names a path outside the workspace (${candidate})`;
      const guarded = namesProtectedPath(context.cwd, candidate, context.uncertainCwd);
      if (guarded !== undefined) return `${name} names a protected file (${guarded})`;
    }
  }
  return undefined;
}

/** Commands whose arguments are text, not files. */
const textOnly = new Set(["echo", "printf", ":", "true", "false", "test", "[", "type", "which", "command", "help", "export", "declare", "typeset", "local", "readonly", "unset", "alias", "unalias", "set", "shopt", "exit", "return", "let"]);

/**
 * Programs that only read the files they are given: an option smuggled in by a file name cannot
 * make them write or run anything. (Not rg: --pre=CMD runs a command; not less or bat: a pager.)
 */
const readers = new Set([
  "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "diff", "du", "stat", "file", "md5sum", "sha1sum", "sha256sum",
  "sha512sum", "b2sum", "cksum", "nl", "basename", "dirname", "realpath", "readlink", "tac", "strings", "od", "hexdump", "cmp",
  "comm", "uniq", "cut", "paste", "column", "fold", "expand", "unexpand", "rev", "jq",
]);

/** Where a value may hold a path: the word itself, an attached option value, the part after `=`, `@file`, a file: URL. */
function candidates(value: string): string[] {
  const out: string[] = [];
  const leavesByText = (s: string): boolean => s.startsWith("/") || s.startsWith("~") || s === ".." || s.startsWith("../");
  if (value.startsWith("-")) {
    // -t/out, -Dt/out, -o~/x: somewhere in the cluster a value may start.
    if (!value.startsWith("--")) {
      for (let k = 2; k < value.length; k++) {
        const rest = value.slice(k);
        if (leavesByText(rest)) {
          out.push(rest);
          break;
        }
      }
    }
  } else if (value !== "-") {
    out.push(value.startsWith("@") ? value.slice(1) : value);
  }
  const eq = value.indexOf("=");
  if (eq >= 0) {
    const after = value.slice(eq + 1).replace(/^[@<]/, "");
    if (leavesByText(after)) out.push(after);
  }
  const url = /file:\/\/([^\s'"]*)/i.exec(value);
  if (url !== null) out.push(url[1]?.startsWith("/") === true ? url[1] : `/${url[1] ?? ""}`);
  return out;
}

/** Arguments that are patterns, scripts or messages rather than files. */
function notPaths({ name, args }: CommandView): Set<number> {
  const skip = new Set<number>();
  const valueOf = (options: readonly string[]): boolean => {
    let found = false;
    args.forEach((a, i) => {
      if (a !== undefined && options.includes(a)) {
        skip.add(i + 1);
        found = true;
      }
    });
    return found;
  };
  const firstOperand = (): void => {
    const i = args.findIndex((a) => a === undefined || !a.startsWith("-"));
    if (i >= 0) skip.add(i);
  };
  switch (name) {
    case "grep": case "egrep": case "fgrep": case "rg": case "zgrep": case "ag": case "ack":
      if (!valueOf(["-e", "--regexp", "-f", "--file"])) firstOperand();
      break;
    case "sed":
      if (!valueOf(["-e", "--expression", "-f", "--file"])) firstOperand();
      break;
    case "awk": case "gawk": case "mawk": case "nawk":
      valueOf(["-F", "-v", "--assign", "--field-separator"]);
      if (!valueOf(["-f", "--file", "-e", "--source"])) firstOperand();
      break;
    case "git":
      valueOf(["-m", "--message"]);
      break;
  }
  return skip;
}

/** Holes that can only become names in the folder they are written in: pathname patterns, and find's {}. */
function isPatternHole(source: string, view: CommandView): boolean {
  if (source === "*" || source === "?" || source.startsWith("[")) return true;
  return source === "{}" && view.segment.via.at(-1) === "find -exec";
}

function computedWord(word: Word, view: CommandView, context: RiskContext, optionsDone: boolean): string | undefined {
  const first = word.pieces[0];
  if (word.pieces.length === 1 && first?.kind === "any" && /^[<>]\(/.test(first.source)) return undefined; // <(…) is a /dev/fd path
  const computed = word.pieces.find((p) => p.kind !== "lit" && !isPatternHole(p.source, view));
  if (computed !== undefined) return `${view.name ?? "a command"} is given an argument computed at run time (${word.source}), which may name a path outside the workspace`;
  if (!optionsDone && first?.kind !== "lit" && !readers.has(view.name ?? "")) {
    return `${view.name ?? "a command"} is given an argument that starts with a pattern (${word.source}); a file named like an option (--target-directory=..) would become one. Write ./${word.source} instead`;
  }
  // The fixed text around the pattern decides: /proc/*/environ and ../* are outside. A
  // component such as .* may match "..".
  const probe = word.pieces.map((p) => (p.kind === "lit" ? p.text : "x")).join("");
  if (word.pieces.some((p, i) => p.kind !== "lit" && /(^|\/)\.$/.test(word.pieces.slice(0, i).map((q) => (q.kind === "lit" ? q.text : "x")).join("")))) {
    return `${view.name ?? "a command"} is given a pattern (${word.source}) that may match ".." and so reach outside the workspace`;
  }
  for (const candidate of candidates(probe)) {
    if (isOutsideWorkspace(context.cwd, candidate, context.uncertainCwd)) return `${view.name ?? "a command"} names paths outside the workspace (${word.source})`;
  }
  return undefined;
}
