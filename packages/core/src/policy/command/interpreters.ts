import { isOutsideWorkspace } from "./paths.js";
import type { CommandView, RiskContext } from "./risk-checks.js";
import { sedEffects } from "./sed-script.js";
import { unwrap } from "./wrappers.js";
import { displayWord } from "./words.js";

/**
 * Programs whose behaviour is a program of their own: `python -c`, `node x.js`, `perl -e`,
 * `bash x.sh`, `source x.sh`, `awk 'BEGIN{system(…)}'`, `sed 'e …'`. What they do cannot be read
 * from the command line, so they need approval. Two are understood well enough to stay safe in
 * plain use: awk programs without system(), getline, pipes or redirection, and sed scripts
 * without e, w or r (sed-script.ts). Version and help flags, `python -m MODULE` (like `npm test`,
 * a tool run by name) and the package managers' own subcommands (deno test, bun install) are
 * fine.
 */
export function interpreter(view: CommandView, context: RiskContext): string | undefined {
  const { name, args } = view;
  if (name === undefined) return undefined;
  if (name === "awk" || name === "gawk" || name === "mawk" || name === "nawk") return awk(view);
  if (name === "sed" || name === "gsed") return sed(view, context);
  const inner = unwrap(view.segment.words);
  if (inner !== undefined && !("problem" in inner) && inner.programFile !== undefined && !inner.programFromStdin) {
    return `${name} runs the script ${displayWord(inner.programFile)}, which Cairn cannot check`;
  }
  const family = interpreterFamily(name);
  if (family === undefined) return undefined;
  const opaque = `${name} runs a program (inline code, a script file or standard input), which Cairn cannot check`;
  if (args.length === 0) return view.segment.stdin === "inherited" ? undefined : opaque;
  if (args.every((a) => a !== undefined && versionOrHelp.has(a))) return undefined;
  if (family === "python") return pythonModule(args) ? undefined : opaque;
  if (family === "deno") return typeof args[0] === "string" && denoTools.has(args[0]) ? undefined : opaque;
  if (family === "bun") {
    const runsCode = args.some((a) => a === undefined || ["-e", "--eval", "-p", "--print"].includes(a) || /\.(m?[jt]sx?|c[jt]s)$/.test(a));
    return runsCode ? opaque : undefined;
  }
  return opaque;
}

const versionOrHelp = new Set(["--version", "-V", "-v", "--help", "-h", "-version", "-help", "-?"]);
const denoTools = new Set(["test", "fmt", "lint", "check", "info", "doc", "bench", "task", "types", "cache"]);

function interpreterFamily(name: string): string | undefined {
  if (/^(python|pypy)[\d.]*$/.test(name)) return "python";
  if (name === "deno") return "deno";
  if (name === "bun") return "bun";
  if (/^(lua|luajit)[\d.]*$/.test(name) || /^(perl|ruby|php)[\d.]*$/.test(name)) return "script";
  return otherInterpreters.has(name) ? "script" : undefined;
}

const otherInterpreters = new Set([
  "node", "nodejs", "irb", "Rscript", "R", "tclsh", "wish", "pwsh", "powershell", "osascript", "sqlite3", "psql", "mysql", "mariadb",
  // Editors run by a script (ed's w/r/!, vi's -c/+/-s/-S, ex on stdin) write any file and run commands.
  "ed", "red", "vim", "vi", "nvim", "ex", "view", "vimdiff", "gvim", "rvim", "rview", "evim", "nvi", "elvis", "vile", "kak", "emacs", "groovy", "julia", "java", "jshell", "kotlin", "scala", "swift", "guile", "racket", "sbcl",
  "ocaml", "erl", "escript", "elixir", "iex", "gdb", "jjs", "ts-node", "tsx", "zx", "fish", "elvish", "nu", "xonsh",
]);

/** python [-u -B -E -s -I -O -q …] -m MODULE [args…]: everything after the module is its own. */
function pythonModule(args: readonly (string | undefined)[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-m") return args[i + 1] !== undefined;
    if (arg === undefined || !/^-[uBEsIOqSRbdv]+$/.test(arg)) return false;
  }
  return false;
}

/** Something an awk program can do besides reading and printing: run commands, pipe, redirect, load extensions. */
const awkEffects = /\bsystem\b|\bgetline\b|[|>@]/;

function awk({ name, args }: CommandView): string | undefined {
  const programs: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) return `${name ?? "awk"} is given an argument computed at run time, which could be its program`;
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    const option = arg.startsWith("--") ? arg.split("=")[0] ?? arg : arg.slice(0, 2);
    const attached = arg.startsWith("--") ? (arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : undefined) : arg.length > 2 ? arg.slice(2) : undefined;
    if (option === "-S" || option === "--sandbox") return undefined; // gawk's sandbox turns off system(), redirection and extensions
    if (["-F", "-v", "--field-separator", "--assign"].includes(option)) {
      if (attached === undefined) i++;
      continue;
    }
    if (option === "-e" || option === "--source") {
      const program = attached ?? args[++i];
      if (program === undefined) return `${name ?? "awk"} is given a program computed at run time`;
      programs.push(program);
      continue;
    }
    return `${name ?? "awk"} ${option} ${["-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec"].includes(option) ? "runs a program from a file" : "is an option Cairn does not know"}, so what it runs cannot be checked`;
  }
  if (programs.length === 0) {
    const program = args[i];
    if (program === undefined) return i < args.length ? `${name ?? "awk"} is given a program computed at run time` : undefined;
    programs.push(program);
  }
  return programs.some((p) => awkEffects.test(p))
    ? `${name ?? "awk"}'s program uses system(), getline, a pipe or a redirect, so it can run commands or write files`
    : undefined;
}

const sedFlags = "nErsuzb";
const sedLong = ["--quiet", "--silent", "--regexp-extended", "--separate", "--unbuffered", "--null-data", "--zero-terminated", "--posix", "--debug", "--follow-symlinks", "--binary", "--in-place", "--line-length", "--expression", "--file", "--sandbox", "--help", "--version"];

function sed({ name, args }: CommandView, context: RiskContext): string | undefined {
  const scripts: string[] = [];
  let sandboxed = false;
  let firstOperand: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) return `${name ?? "sed"} is given an argument computed at run time, which could be its script`;
    if (arg === "--") {
      firstOperand ??= i + 1;
      break;
    }
    if (arg.startsWith("--")) {
      const bare = arg.split("=")[0] ?? arg;
      const matches = sedLong.filter((l) => l.startsWith(bare));
      const option = matches.includes(bare) ? bare : matches.length === 1 ? matches[0] : undefined;
      if (option === undefined) return `${name ?? "sed"} option ${bare} is not one Cairn knows`;
      if (option === "--sandbox") sandboxed = true;
      if (option === "--file") return `${name ?? "sed"} --file runs a script from a file, which Cairn cannot check`;
      if (option === "--expression" || option === "--line-length") {
        const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[++i];
        if (value === undefined) return `${name ?? "sed"} is given a script computed at run time`;
        if (option === "--expression") scripts.push(value);
      }
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      firstOperand ??= i;
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const c = arg[j] ?? "";
      if (c === "i") break; // -i[SUFFIX]: the rest is the backup suffix
      if (sedFlags.includes(c)) continue;
      if (c === "f") return `${name ?? "sed"} -f runs a script from a file, which Cairn cannot check`;
      if (c === "e" || c === "l") {
        const value = j + 1 < arg.length ? arg.slice(j + 1) : args[++i];
        if (value === undefined) return `${name ?? "sed"} is given a script computed at run time`;
        if (c === "e") scripts.push(value);
        break;
      }
      return `${name ?? "sed"} option -${c} is not one Cairn knows`;
    }
  }
  if (scripts.length === 0 && firstOperand !== undefined) {
    const script = args[firstOperand];
    if (script === undefined) return `${name ?? "sed"} is given a script computed at run time`;
    scripts.push(script);
  }
  if (sandboxed) return undefined;
  for (const script of scripts) {
    const effects = sedEffects(script);
    if (!effects.ok) return `${effects.problem}, so what it does cannot be checked`;
    if (effects.runs) return `${name ?? "sed"}'s script runs shell commands (the e command or s///e)`;
    for (const file of [...effects.writes, ...effects.reads]) {
      if (isOutsideWorkspace(context.cwd, file, context.uncertainCwd)) return `${name ?? "sed"}'s script reads or writes a file outside the workspace (${file})`;
    }
  }
  return undefined;
}
