import { clusterHas, isLongPrefixOf } from "./option-match.js";
import { basenameWord, staticValue, type Word } from "./words.js";

/**
 * Options that make a program run a command given in the option itself, or in configuration the
 * option sets: `git -c alias.x='!cmd' x`, `tar --checkpoint-action=exec=cmd`, `sort
 * --compress-program=cmd`, `ssh -o ProxyCommand=cmd`. No rule can see that command, so such a
 * use is opaque: it needs approval and no allow rule vouches for it. Long options count in any
 * abbreviation (option-match.ts).
 *
 * Returns what is wrong, or undefined when the command carries no code this way.
 */
export function carriedCode(words: readonly Word[]): string | undefined {
  const first = words[0];
  const name = first === undefined ? undefined : staticValue(basenameWord(first));
  if (name === undefined) return undefined;
  const check = programs[name];
  return check?.(words.slice(1), name);
}

type Check = (words: readonly Word[], name: string) => string | undefined;

const runs = (name: string, option: string, what = "a command given in the option"): string => `${name} ${option} runs ${what}, which Cairn cannot check`;

/** Long options (any abbreviation) and short options (in a cluster; `valueLetters` end it) that run code. */
function options(long: readonly string[], short = "", valueLetters = "", exactHarmless: readonly string[] = []): Check {
  return (words, name) => {
    for (const word of words) {
      const arg = staticValue(word);
      if (arg === undefined) continue;
      if (arg === "--") return undefined;
      const bare = arg.split("=")[0] ?? arg;
      if (arg.startsWith("--") && !exactHarmless.includes(bare)) {
        const hit = long.find((l) => isLongPrefixOf(arg, l));
        if (hit !== undefined) return runs(name, hit);
      }
      for (const letter of short) if (clusterHas(arg, letter, valueLetters)) return runs(name, `-${letter}`);
    }
    return undefined;
  };
}

/** An argument that starts with a pattern or a variable can become any option once expanded (a file named --to-command=sh). */
function leadingHole(words: readonly Word[]): Word | undefined {
  for (const word of words) {
    if (staticValue(word) === "--") return undefined;
    if (word.pieces[0] !== undefined && word.pieces[0].kind !== "lit") return word;
  }
  return undefined;
}

function tar(words: readonly Word[], name: string): string | undefined {
  const hole = leadingHole(words);
  if (hole !== undefined) {
    return `an argument of ${name} ("${hole.source}") is computed or a pattern, and could expand to an option that runs a command (a file named --checkpoint-action=exec=…); write ./* or name the files`;
  }
  const args = words.map(staticValue);
  const forceLocal = args.some((a) => a !== undefined && isLongPrefixOf(a, "--force-local"));
  const remote = (archive: string | undefined): string | undefined =>
    archive !== undefined && archive.includes(":") && !forceLocal ? `${name} -f ${archive} reaches the archive through a remote shell command` : undefined;
  const longRunners = ["--checkpoint-action", "--to-command", "--use-compress-program", "--rsh-command", "--info-script", "--new-volume-script"];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") break;
    if (arg.startsWith("--")) {
      const bare = arg.split("=")[0] ?? arg;
      if (bare === "--checkpoint") continue; // a real option of its own, and a prefix of --checkpoint-action
      const hit = longRunners.find((l) => isLongPrefixOf(arg, l));
      if (hit !== undefined) return runs(name, hit);
      if (isLongPrefixOf(arg, "--file")) {
        const problem = remote(arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[i + 1]);
        if (problem !== undefined) return problem;
      }
      continue;
    }
    // The first word may be old-style letters without a dash (tar xzf a.tar): each letter that
    // takes a value takes the next word. In a dashed cluster the rest of the cluster is the value.
    const oldStyle = i === 0 && !arg.startsWith("-");
    if (!arg.startsWith("-") && !oldStyle) continue;
    let next = i + 1;
    for (const [j, letter] of [...(oldStyle ? arg : arg.slice(1))].entries()) {
      if (letter === "I" || letter === "F") return runs(name, `-${letter}`, "a program given in the option (a compress program or volume script)");
      if (!tarValueLetters.includes(letter)) continue;
      const attached = oldStyle ? "" : arg.slice(j + 2);
      const value = attached !== "" ? attached : args[next++];
      if (letter === "f") {
        const problem = remote(value);
        if (problem !== undefined) return problem;
      }
      if (!oldStyle) break;
    }
  }
  return undefined;
}

const tarValueLetters = "fbCgKLNTVX";

/** git -c keys that only change how git shows things or who it says commits are from. */
const harmlessGitConfig = /^(color|advice|user|init|i18n|column|status|log|pretty|blame)\.|^(core\.(quotepath|autocrlf|safecrlf|eol|ignorecase|filemode|abbrev|whitespace|symlinks|precomposeunicode)|diff\.(renames|algorithm|context|indentheuristic|mnemonicprefix|noprefix|relative|renamelimit|interhunkcontext|suppressblankempty)|merge\.conflictstyle|pull\.rebase|commit\.gpgsign|tag\.gpgsign|gc\.auto)$/;

function gitConfigKey(setting: string): string | undefined {
  const key = (setting.split("=")[0] ?? "").toLowerCase();
  return harmlessGitConfig.test(key) ? undefined : key;
}

const gitFlags = new Set(["-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--no-lazy-fetch", "--no-optional-locks", "--no-advice", "--bare", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--version", "-v", "--help", "-h", "--html-path", "--man-path", "--info-path", "--exec-path"]);
const gitWithValue = new Set(["-C", "--git-dir", "--work-tree", "--namespace", "--list-cmds", "--attr-source"]);

/** git's own options come before the subcommand; git matches them exactly, without abbreviations. */
function git(words: readonly Word[], name: string): string | undefined {
  const args = words.map(staticValue);
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) return `an option of ${name} is computed at run time, and could be -c alias.x=!cmd, which runs a command`;
    if (!arg.startsWith("-")) break;
    if (arg === "-c") {
      const setting = args[++i];
      if (setting === undefined) return `the value of ${name} -c is computed at run time, and a setting such as alias.x=!cmd runs a command`;
      const key = gitConfigKey(setting);
      if (key !== undefined) return `${name} -c ${key}=… sets configuration that can make git run a command (aliases, core.pager, core.sshCommand, …), which Cairn cannot check`;
      continue;
    }
    if (arg.startsWith("--config-env")) return runs(name, "--config-env", "configuration taken from the environment (aliases, core.sshCommand, …)");
    if (arg.startsWith("--exec-path=")) return runs(name, "--exec-path=DIR", "its subcommands from that folder");
    if (gitFlags.has(arg)) continue;
    const bare = arg.split("=")[0] ?? arg;
    if (gitWithValue.has(bare)) {
      if (!arg.includes("=") && bare !== "--list-cmds") i++;
      continue;
    }
    return `${name} option ${arg} is not one Cairn knows, so what git runs cannot be checked`;
  }
  const sub = args[i];
  if (sub === undefined) return i < args.length ? `${name} runs a subcommand computed at run time` : undefined;
  const rest = args.slice(i + 1);
  const restWords = words.slice(i + 1);
  const has = (long: readonly string[], short = "", valueLetters = ""): string | undefined =>
    options(long, short, valueLetters)(restWords, `${name} ${sub}`);
  const operands = rest.filter((a) => a === undefined || !a.startsWith("-"));
  switch (sub) {
    case "clone":
      return has(["--upload-pack", "--template"], "u", "bjoc") ?? configValues(rest, name, sub);
    case "fetch":
    case "pull":
      return has(["--upload-pack"]);
    case "ls-remote":
      return has(["--upload-pack", "--exec"], "u");
    case "archive":
      return has(["--exec"]);
    case "push":
      return has(["--receive-pack", "--exec"]);
    case "rebase":
      return has(["--exec"], "x", "sX");
    case "bisect":
      return operands[0] === "run" ? runs(name, "bisect run", "the command it is given") : undefined;
    case "submodule":
      return operands.includes("foreach") ? runs(name, "submodule foreach", "the command it is given") : undefined;
    case "difftool":
    case "mergetool":
      return has(["--extcmd", "--tool"], "xt");
    case "grep":
      return has(["--open-files-in-pager"], "O", "efABCm");
    case "config":
      return gitConfig(rest, name);
    case "hook":
      return operands[0] === "run" ? runs(name, "hook run", "repository hooks") : undefined;
    case "apply":
      return has(["--unsafe-paths"]) === undefined ? undefined : `${name} apply --unsafe-paths writes files outside the repository`;
    case "send-email":
    case "instaweb":
    case "daemon":
    case "web--browse":
    case "credential":
    case "credential-store":
    case "credential-cache":
    case "fsmonitor--daemon":
    case "remote-ext":
      return `${name} ${sub} runs programs or handles credentials, which Cairn cannot check`;
    default:
      return undefined;
  }
}

function configValues(rest: readonly (string | undefined)[], name: string, sub: string): string | undefined {
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === undefined) continue;
    const value = arg.startsWith("--config=") ? arg.slice(9) : arg === "-c" ? rest[i + 1] : undefined;
    if (value === undefined) continue;
    const key = gitConfigKey(value);
    if (key !== undefined) return `${name} ${sub} -c ${key}=… sets configuration that can make git run a command, which Cairn cannot check`;
  }
  return undefined;
}

const gitConfigReads = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "--get-color", "--get-colorbool"];

/** git config only reads unless given a value; writing a key that can run commands is opaque. */
function gitConfig(rest: readonly (string | undefined)[], name: string): string | undefined {
  if (rest.some((a) => a === undefined)) return `${name} config with arguments computed at run time could set a key that runs commands`;
  const args = rest as string[];
  if (args.some((a) => gitConfigReads.some((r) => a === r || a.startsWith(`${r}=`)) || a === "-l")) return undefined;
  if (args.some((a) => a === "-e" || isLongPrefixOf(a, "--edit"))) return runs(name, "config --edit", "an editor");
  const operands = args.filter((a, i) => !a.startsWith("-") && !["-f", "--file", "--blob", "--type"].includes(args[i - 1] ?? ""));
  const [first, second] = operands;
  if (first === undefined || first === "get" || first === "list") return undefined;
  const key = first === "set" ? second : operands.length >= 2 ? first : undefined;
  if (key === undefined) return undefined; // one operand: a read
  const bad = gitConfigKey(key);
  return bad === undefined ? undefined : `${name} config ${bad} sets configuration that can make git run a command later, which Cairn cannot check`;
}

function ssh(words: readonly Word[], name: string): string | undefined {
  const args = words.map(staticValue);
  const letters = name === "ssh" ? "oF" : "oFS";
  for (const arg of args) {
    if (arg === undefined) return `an argument of ${name} is computed at run time, and could be -o ProxyCommand=…, which runs a command`;
    if (!arg.startsWith("-") || arg.startsWith("--")) continue;
    for (const letter of letters) {
      if (clusterHas(arg, letter, "bcDEeFiIJlLmOopPQRSwW".replace(letter, ""))) return runs(name, `-${letter}`, "commands from options or a config file (ProxyCommand, LocalCommand)");
    }
  }
  return undefined;
}

const programs: Record<string, Check> = {
  git,
  tar,
  gtar: tar,
  bsdtar: tar,
  sort: options(["--compress-program"]),
  split: options(["--filter"]),
  rsync: options(["--rsh", "--rsync-path"], "e", "BfTM"),
  zip: (words, name) => (words.some((w) => /^-TT/.test(staticValue(w) ?? "")) ? runs(name, "-TT") : options(["--unzip-command"])(words, name)),
  wget: options(["--execute", "--use-askpass"], "e", "aBDIiloOPQtTUwXY"),
  curl: options(["--config"], "K", "AbcCdDEFHmoruTUwxXyYz"),
  make: options(["--eval"], "E", "CfIjloWO"),
  gmake: options(["--eval"], "E", "CfIjloWO"),
  man: options(["--pager", "--html", "--browser"], "PH", "CMLmSsEpRT"),
  hg: options(["--config"]),
  rg: options(["--pre"]),
  ssh,
  scp: ssh,
  sftp: ssh,
};
