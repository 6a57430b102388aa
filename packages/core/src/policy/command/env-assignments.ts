import type { CommandView } from "./risk-checks.js";
import { staticValue, type Word } from "./words.js";

/**
 * Environment variables change what a command runs and where it reads its configuration:
 * `GIT_EXTERNAL_DIFF=cmd git diff`, `PATH=. ls`, `LD_PRELOAD=x.so`, `HOME=. git status` (a
 * .gitconfig with core.fsmonitor), `npm_config_script_shell=x npm test`. No list of the
 * dangerous ones can be complete, so the reverse: a variable passed to a command, or exported,
 * needs approval unless it is one known to change only output, locale or a mode. A plain
 * lowercase shell variable (`x=1; echo $x`) that is not exported is fine.
 */
export function environment(view: CommandView): string | undefined {
  const { segment } = view;
  const exported = segment.words.length > 0;
  for (const assignment of segment.assignments) {
    const reason = check(assignment, exported);
    if (reason !== undefined) return reason;
  }
  if (view.name === undefined || !declarations.has(view.name)) return undefined;
  const exports = view.name === "export" || view.args.some((a) => a !== undefined && /^-[a-zA-Z]*x/.test(a));
  for (const word of view.argWords) {
    if (staticValue(word)?.startsWith("-") === true) continue;
    const reason = check(word, exports);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

const declarations = new Set(["export", "declare", "typeset", "local", "readonly"]);

const harmless = new Set([
  "NODE_ENV", "CI", "DEBUG", "FORCE_COLOR", "NO_COLOR", "TERM", "COLUMNS", "LINES", "LANG", "LANGUAGE", "TZ", "RUST_BACKTRACE",
  "RUST_LOG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONWARNINGS",
  "NODE_NO_WARNINGS", "CGO_ENABLED", "GOOS", "GOARCH", "GO111MODULE", "PORT", "HOST", "LOG_LEVEL", "VERBOSE", "CARGO_TERM_COLOR",
  "CLICOLOR", "CLICOLOR_FORCE", "TERM_PROGRAM", "NPM_CONFIG_LOGLEVEL", "npm_config_loglevel", "TS_NODE_TRANSPILE_ONLY",
]);

function check(word: Word, exported: boolean): string | undefined {
  const first = word.pieces[0];
  if (first?.kind !== "lit") return undefined; // not NAME=…: the analysis refuses computed names
  const eq = first.text.indexOf("=");
  if (eq <= 0) return undefined;
  const name = first.text.slice(0, eq).replace(/\+$/, "");
  if (harmless.has(name) || /^LC_[A-Z]+$/.test(name)) return undefined;
  if (!exported && /^[a-z_][a-z0-9_]*$/.test(name)) return undefined;
  return `sets ${name}, which can change what a command runs or where it reads its configuration`;
}
