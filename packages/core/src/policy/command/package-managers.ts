import { hasOption } from "./option-match.js";

/**
 * What npm, pnpm, yarn and bun are asked to do, under the name they give it. npm resolves a
 * command the way its cmd-list does: camelCase to kebab-case, the exact name, an alias (`i`,
 * `rm`, `c`, `x`, `tst`, typos such as `isntall`), or any unambiguous prefix of a name or alias
 * (`pub` and `publ` are publish, `unpub` is unpublish). pnpm and yarn pass the registry commands
 * they do not have on to npm, so their own aliases come first and npm's reading after them.
 */
const npmCommands = [
  "access", "adduser", "approve-scripts", "audit", "bugs", "cache", "ci", "completion", "config", "dedupe", "deny-scripts", "deprecate",
  "diff", "dist-tag", "docs", "doctor", "edit", "exec", "explain", "explore", "find-dupes", "fund", "get", "help", "help-search", "init",
  "install", "install-ci-test", "install-scripts", "install-test", "link", "ll", "login", "logout", "ls", "org", "outdated", "owner",
  "pack", "ping", "pkg", "prefix", "profile", "prune", "publish", "query", "rebuild", "repo", "restart", "root", "run", "sbom", "search",
  "set", "shrinkwrap", "stage", "star", "stars", "start", "stop", "team", "test", "token", "trust", "undeprecate", "uninstall",
  "unpublish", "unstar", "update", "version", "view", "whoami",
];

const npmAliases: Record<string, string> = {
  author: "owner", home: "docs", issues: "bugs", info: "view", show: "view", find: "search", add: "install", unlink: "uninstall",
  remove: "uninstall", rm: "uninstall", r: "uninstall", un: "uninstall", rb: "rebuild", list: "ls", ln: "link", create: "init",
  i: "install", it: "install-test", cit: "install-ci-test", u: "update", up: "update", c: "config", s: "search", se: "search",
  tst: "test", t: "test", ddp: "dedupe", v: "view", "run-script": "run", "clean-install": "ci", "clean-install-test": "install-ci-test",
  x: "exec", why: "explain", la: "ll", verison: "version", ic: "ci", innit: "init", in: "install", ins: "install", inst: "install",
  insta: "install", instal: "install", isnt: "install", isnta: "install", isntal: "install", isntall: "install", "install-clean": "ci",
  "isntall-clean": "ci", hlep: "help", "dist-tags": "dist-tag", upgrade: "update", udpate: "update", rum: "run", sit: "install-ci-test",
  urn: "run", ogr: "org", "add-user": "adduser",
};

const npmNames = [...npmCommands, ...Object.keys(npmAliases)];

/** npm's own reading of a command word; undefined when npm would not run any command for it. */
export function npmCommand(word: string): string | undefined {
  const name = /[A-Z]/.test(word) ? word.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`) : word;
  if (npmCommands.includes(name)) return name;
  const alias = npmAliases[name];
  if (alias !== undefined) return alias;
  if (name === "") return undefined;
  // npm's abbrev: a full name always stands for itself, any other prefix only when one name has it.
  const matches = npmNames.filter((n) => n.startsWith(name));
  if (matches.length !== 1) return undefined;
  const [only] = matches as [string];
  return npmAliases[only] ?? only;
}

/** Each manager's own aliases, read before npm's: `pnpm rm` and `bun rm` uninstall, `yarn global` is its own. */
const ownAliases: Record<string, Record<string, string>> = {
  pnpm: { i: "install", add: "install", rm: "uninstall", remove: "uninstall", un: "uninstall", up: "update", upgrade: "update", ln: "link", t: "test", tst: "test", "run-script": "run", dlx: "dlx", exec: "exec", c: "config" },
  yarn: { add: "install", remove: "uninstall", upgrade: "update", global: "global", dlx: "dlx", exec: "exec", npm: "npm", tag: "tag", unlink: "unlink" },
  bun: { i: "install", add: "install", a: "install", rm: "uninstall", remove: "uninstall", r: "uninstall", x: "exec", update: "update", link: "link", unlink: "unlink", pm: "pm" },
};

export const packageManagers = new Set(["npm", "pnpm", "yarn", "bun"]);
/** npm exec, pnpm dlx and bun x under names of their own. */
export const execRunners = new Set(["npx", "pnpx", "bunx"]);

/**
 * The words a package manager may take for its command: options come first, and one without `=`
 * may take the next word as its value (`npm --prefix . publish`, `npm -w pkg test`), so every
 * word up to the first one that cannot be a value is a candidate.
 */
export function commandCandidates(args: readonly (string | undefined)[]): { word: string | undefined; index: number }[] {
  const out: { word: string | undefined; index: number }[] = [];
  let afterValueOption = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") break;
    if (arg !== undefined && arg.startsWith("-") && arg !== "-") {
      afterValueOption = !arg.includes("=");
      continue;
    }
    out.push({ word: arg, index: i });
    if (!afterValueOption) break;
    afterValueOption = false;
  }
  return out;
}

/** The command a manager runs for `word`, in npm's vocabulary where it has one. */
export function managerCommand(manager: string, word: string): string | undefined {
  return ownAliases[manager]?.[word] ?? npmCommand(word);
}

/** npm commands that act on the registry, the person's account or config outside the workspace. */
const registryCommands: Record<string, string> = {
  publish: "publishes to a registry", unpublish: "unpublishes from a registry", deprecate: "changes a package on a registry",
  undeprecate: "changes a package on a registry", trust: "changes who may publish a package", star: "changes your account on a registry",
  unstar: "changes your account on a registry", adduser: "logs in and writes credentials outside the workspace",
  login: "logs in and writes credentials outside the workspace", logout: "changes credentials outside the workspace",
};
/** Commands that only read with these subcommands (or none) and write otherwise. */
const readOnlySubcommands: Record<string, readonly string[]> = {
  "dist-tag": ["ls", "list"], owner: ["ls", "list"], access: ["list", "get"], team: ["ls", "list"], org: ["ls", "list"],
  token: ["list", "ls"], profile: ["get"], config: ["get", "list", "ls"], tag: ["list", "ls"],
};
const writingWhat: Record<string, string> = {
  "dist-tag": "changes a package's tags on a registry", owner: "changes who owns a package", access: "changes who may use a package",
  team: "changes a registry team", org: "changes a registry organisation", token: "changes your registry tokens",
  profile: "changes your registry profile", config: "writes configuration outside the workspace", tag: "changes a package's tags on a registry",
};

/**
 * Why a package-manager command needs the person, or undefined: publishing and other registry
 * writes, logins, config written to the person's home (`npm config set`, `npm set`), global links,
 * and commands that run a shell command given to them (`npm exec -c`, `npm explore … -- cmd`).
 */
export function packageManagerRisk(manager: string, args: readonly (string | undefined)[]): string | undefined {
  if (execRunners.has(manager)) return givesShellCommand(args) ? `${manager} runs the shell command given to -c, which Cairn cannot check` : undefined;
  for (const candidate of commandCandidates(args)) {
    if (candidate.word === undefined) return `${manager} runs a command computed at run time`;
    const command = managerCommand(manager, candidate.word);
    if (command === undefined) continue;
    const rest = args.slice(candidate.index + 1);
    const spelled = command === candidate.word ? command : `${candidate.word} (${command})`;
    const reason = commandRisk(manager, command, rest);
    if (reason !== undefined) return `${manager} ${spelled} ${reason}`;
  }
  return undefined;
}

function commandRisk(manager: string, command: string, rest: readonly (string | undefined)[]): string | undefined {
  const registry = registryCommands[command];
  if (registry !== undefined) return registry;
  const sub = rest.findIndex((a) => a === undefined || !a.startsWith("-"));
  const subWord = sub < 0 ? null : rest[sub];
  if (command === "npm" && manager === "yarn") {
    if (subWord === null) return undefined;
    if (subWord === undefined) return "runs an npm command computed at run time";
    const inner = npmCommand(subWord) ?? subWord;
    const reason = registryCommands[inner] ?? (readOnlySubcommands[inner] !== undefined ? commandRisk("npm", inner, rest.slice(sub + 1)) : undefined);
    return reason === undefined ? undefined : `${subWord === inner ? inner : `${subWord} (${inner})`} ${reason}`;
  }
  const readOnly = readOnlySubcommands[command];
  if (readOnly !== undefined) {
    if (subWord === null) return undefined;
    if (subWord === undefined) return `${writingWhat[command]} (its subcommand is computed at run time)`;
    return readOnly.includes(subWord) ? undefined : writingWhat[command];
  }
  if (command === "set") return "writes configuration outside the workspace";
  // `npm link` with no package registers this one globally; `yarn link`/`bun link` do the same.
  if (command === "link") return "links packages through a global folder outside the workspace";
  if (command === "explore") return "runs a shell command in a package's folder";
  if (command === "exec" && givesShellCommand(rest)) return "runs the shell command given to -c, which Cairn cannot check";
  return undefined;
}

/** `npm exec -c 'cmd'` / `--call`: only among exec's own options, before the command it runs. */
function givesShellCommand(rest: readonly (string | undefined)[]): boolean {
  const own = rest.findIndex((a) => a === undefined || a === "--" || !a.startsWith("-"));
  return hasOption(own < 0 ? rest : rest.slice(0, own), "c", ["--call"]);
}

/** Options of the exec commands that take a value: the command they run comes after it. */
const execValueOptions = new Set(["-p", "--package", "-w", "--workspace", "--filter", "-F", "-C", "--dir", "--cwd", "--prefix", "-c", "--call", "--shell-mode"]);

/**
 * The command line a package manager runs as a program of the person's: `pnpm exec rm -rf d`,
 * `yarn exec …`, `npm exec -- …`, `npx …`, `bunx …`, `pnpm dlx …`. The classifier checks it like
 * any command (what it finds only adds reasons); undefined for any other use.
 */
export function execCommand(name: string, args: readonly (string | undefined)[]): (string | undefined)[] | undefined {
  let rest: readonly (string | undefined)[];
  if (execRunners.has(name)) rest = args;
  else if (packageManagers.has(name)) {
    const candidate = commandCandidates(args).find((c) => c.word !== undefined && ["exec", "dlx", "x"].includes(managerCommand(name, c.word) ?? c.word));
    if (candidate === undefined) return undefined;
    rest = args.slice(candidate.index + 1);
  } else return undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === "--") return rest.length > i + 1 ? rest.slice(i + 1) : undefined;
    if (arg === undefined || !arg.startsWith("-")) return rest.slice(i);
    if (execValueOptions.has(arg)) i++;
  }
  return undefined;
}
