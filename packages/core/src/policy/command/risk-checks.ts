import { environment } from "./env-assignments.js";
import { interpreter } from "./interpreters.js";
import { git } from "./git-risks.js";
import { kill } from "./kill-signals.js";
import { hasOption, operands } from "./option-match.js";
import { commandCandidates, execRunners, managerCommand, packageManagerRisk, packageManagers } from "./package-managers.js";
import { outsidePath } from "./path-args.js";
import { isOutsideWorkspace } from "./paths.js";
import type { Segment } from "./segments.js";
import { displayWord, type Word } from "./words.js";

/**
 * Built-in "needs approval" checks, applied to every command a command line runs (chains,
 * pipes, subshells, substitutions, wrapper targets). Copy for the README:
 *
 * | check             | needs approval when                                                              |
 * |-------------------|----------------------------------------------------------------------------------|
 * | computed-command  | the command name is computed at run time ($CMD, $(…))                             |
 * | rm                | rm -r/-R/-f/-d/--recursive/--force/--dir, in any flag order                       |
 * | delete            | shred, wipe, srm; find -delete                                                    |
 * | git               | push; reset --hard/--merge; clean (not -n); checkout -f/-B/-p/--ours/--theirs,   |
 * |                   | of paths (after a revision or --, ., a pathspec, an existing file); restore (not |
 * |                   | only --staged); switch -f/-C; branch -D/-f/-M/-C; stash drop/clear; rm -r/-f    |
 * |                   | (not --cached); filter-branch; update-ref; reflog expire; gc --prune; prune;     |
 * |                   | worktree remove; tag -d/-f; checkout-index -f; read-tree -u                      |
 * | recursive-perms   | chmod/chown/chgrp -R                                                              |
 * | piped-program     | a pipe into sh/bash/zsh/python/node/perl/ruby/php/… reading its program from it, |
 * |                   | bash <(…), source <(…) (worded as "download" when curl/wget/… is in the command)  |
 * | publish           | npm/pnpm/yarn/bun publish, unpublish, deprecate, dist-tag/owner/access/team/token |
 * |                   | changes, login, config set, link, exec -c, explore, under every alias and prefix |
 * |                   | npm accepts (pub, unpub, c set: package-managers.ts); cargo publish, twine upload,|
 * |                   | gem push, poetry/uv/flit publish, docker/podman push, mvn deploy                  |
 * | privilege         | sudo, doas, su, pkexec, runuser                                                   |
 * | disk              | dd, mkfs*, mke2fs, fdisk, sfdisk, parted, wipefs, mkswap                          |
 * | power             | shutdown, reboot, halt, poweroff, systemctl poweroff/reboot/…, init 0/6           |
 * | kill              | kill with SIGKILL in any spelling (-9, -sKILL, --signal=KILL, -n 9, -SIGKILL…),   |
 * |                   | a computed signal, or kill -1; killall; pkill; killall5; skill; fuser -k          |
 * | outside-write     | a redirect, or an operand of rm/rmdir/unlink/touch/mkdir/truncate/chmod/chown/   |
 * |                   | chgrp/tee/mv (all operands), cp/install/ln/rsync (destination), dd of=, outside  |
 * |                   | the workspace (absolute, ~, ../, or relative after a cd out), or named by a glob  |
 * |                   | or variable (`rm *.log`)                                                          |
 * | containers        | docker/podman rm, rmi, system/volume/image/container/network/builder prune or rm, |
 * |                   | compose down -v/--rmi                                                             |
 * | cluster           | kubectl delete/drain; helm uninstall/delete                                       |
 * | infrastructure    | terraform/tofu/terragrunt apply/destroy; pulumi up/destroy                        |
 * | global-install    | npm/pnpm/bun -g installs, yarn global, cargo install, go install, pipx, uv tool, |
 * |                   | gem install, pip --user/--break-system-packages, brew/apt/dnf/yum/pacman/apk/…   |
 * | outside-path      | any argument, option value (-t/out, --output=/out, of=/out, @file, file://) or   |
 * |                   | input redirect naming a path outside the workspace (real path), a cd out of it,  |
 * |                   | an argument computed at run time, a pattern starting an argument (path-args.ts)  |
 * | interpreter       | python/node/perl/ruby/… running inline code, a script file or stdin; bash FILE,  |
 * |                   | source FILE; awk with system()/getline/|/>; sed with e/w/r; editors run by a     |
 * |                   | script: ed, ex, vi/vim -c/-s/+cmd, emacs --batch (interpreters.ts)                |
 * | environment       | a variable passed to a command or exported, other than a short list of harmless  |
 * |                   | ones (NODE_ENV, CI, LANG, …): GIT_*, PATH, LD_PRELOAD, HOME… (env-assignments.ts)|
 *
 * Long options count in any abbreviation (`rm --rec`, `git reset --ha`: option-match.ts). What
 * bash or a program would run without showing it (arithmetic on names, printf -v a[$(…)], git -c
 * alias.x=!…, tar --to-command, wrappers Cairn cannot follow) makes the analysis fail: such a
 * command always needs approval (evaluation.ts, evaluating-builtins.ts, carried-code.ts).
 *
 * Not flagged: read-only commands, builds and tests, edits inside the workspace, `rm file`
 * for a named file inside the workspace (checkpoints can restore it).
 */
export type CommandView = {
  segment: Segment;
  /** The command's basename (`/bin/rm` → rm); undefined when computed at run time. */
  name: string | undefined;
  /** Argument values; undefined where computed at run time. */
  args: (string | undefined)[];
  argWords: Word[];
};

export type RiskContext = { cwd: string; uncertainCwd: boolean; downloads: boolean };

export type RiskCheck = { id: string; check(view: CommandView, context: RiskContext): string | undefined };

function firstOperand(args: readonly (string | undefined)[], withValue: readonly string[] = []): string | undefined | null {
  const first = operands(args, withValue)[0];
  return first === undefined ? null : first.value;
}

/** Operands that a command writes or deletes: all of them, or the destination. */
const writtenOperands: Record<string, (args: (string | undefined)[]) => (string | undefined)[]> = {
  rm: (a) => operands(a).map((o) => o.value),
  rmdir: (a) => operands(a).map((o) => o.value),
  unlink: (a) => operands(a).map((o) => o.value),
  shred: (a) => operands(a, ["-n", "-s"]).map((o) => o.value),
  touch: (a) => operands(a, ["-d", "-r", "-t"]).map((o) => o.value),
  mkdir: (a) => operands(a, ["-m"]).map((o) => o.value),
  truncate: (a) => operands(a, ["-s", "-r"]).map((o) => o.value),
  tee: (a) => operands(a).map((o) => o.value),
  mv: (a) => operands(a, ["-t", "-S"]).map((o) => o.value).concat(optionValue(a, "-t")),
  chmod: (a) => operands(a).slice(hasOption(a, "", ["--reference"]) ? 0 : 1).map((o) => o.value),
  chown: (a) => operands(a).slice(hasOption(a, "", ["--reference"]) ? 0 : 1).map((o) => o.value),
  chgrp: (a) => operands(a).slice(hasOption(a, "", ["--reference"]) ? 0 : 1).map((o) => o.value),
  cp: (a) => destination(a, ["-t", "-S"]),
  install: (a) => destination(a, ["-t", "-m", "-o", "-g", "-S"]),
  ln: (a) => destination(a, ["-t", "-S"]),
  rsync: (a) => destination(a, ["-e", "--rsh"]),
  dd: (a) => a.filter((v) => v === undefined || v.startsWith("of=")).map((v) => v?.slice(3)),
};

function optionValue(args: readonly (string | undefined)[], option: string): (string | undefined)[] {
  const i = args.indexOf(option);
  return i < 0 ? [] : [args[i + 1]];
}

function destination(args: (string | undefined)[], withValue: readonly string[]): (string | undefined)[] {
  const target = optionValue(args, "-t");
  if (target.length > 0) return target;
  const last = operands(args, withValue).at(-1);
  return last === undefined ? [] : [last.value];
}

function outsideWrite(view: CommandView, context: RiskContext): string | undefined {
  const pick = view.name === undefined ? undefined : writtenOperands[view.name];
  if (pick === undefined) return undefined;
  for (const target of pick(view.args)) {
    if (target === undefined) return `${view.name} writes to paths named by a pattern or variable`;
    if (isOutsideWorkspace(context.cwd, target, context.uncertainCwd)) return `${view.name} writes outside the workspace (${target})`;
  }
  return undefined;
}

const interpreters = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "python", "python2", "python3", "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "pwsh", "tclsh", "Rscript", "osascript"]);
const programOptions = ["-c", "-e", "-E", "-m", "-p", "-r", "--eval", "--print", "--command"];

function pipedProgram(view: CommandView, context: RiskContext): string | undefined {
  const generated = view.segment.runsGeneratedProgram;
  const piped =
    view.name !== undefined && interpreters.has(view.name) && view.segment.stdin === "pipe" &&
    operands(view.args).every((o) => o.value === "-") && !view.args.some((a) => a !== undefined && programOptions.includes(a));
  if (!generated && !piped) return undefined;
  const name = view.name ?? "a shell";
  return context.downloads ? `downloads a program and runs it with ${name} (curl … | sh)` : `runs a program piped into ${name}`;
}

/** npm, pnpm, yarn and bun are read by package-managers.ts, aliases and abbreviations included. */
const publishers: Record<string, readonly string[]> = {
  cargo: ["publish"], twine: ["upload"], gem: ["push"], poetry: ["publish"], uv: ["publish"], flit: ["publish"],
  docker: ["push"], podman: ["push"], mvn: ["deploy"],
};

const systemPackageManagers: Record<string, readonly string[]> = {
  brew: ["install", "uninstall", "remove", "reinstall", "upgrade", "tap"],
  apt: ["install", "remove", "purge", "upgrade", "full-upgrade", "dist-upgrade", "autoremove"],
  "apt-get": ["install", "remove", "purge", "upgrade", "dist-upgrade", "autoremove"],
  aptitude: ["install", "remove", "purge", "upgrade"],
  dnf: ["install", "remove", "erase", "upgrade", "update"], yum: ["install", "remove", "erase", "upgrade", "update"],
  zypper: ["install", "in", "remove", "rm", "update", "up"], apk: ["add", "del"], snap: ["install", "remove"],
  flatpak: ["install", "uninstall"], port: ["install", "uninstall"], pipx: ["install", "uninstall", "inject"],
  gem: ["install", "uninstall"], cargo: ["install", "uninstall"], go: ["install"],
};
/** Commands (as npm names them: `i`, `add`, `isntall` are install) that change the global folder under -g. */
const nodeInstallCommands = new Set(["install", "uninstall", "update", "link", "install-test", "ci", "rebuild", "prune", "dedupe"]);

function globalInstall({ name, args }: CommandView): string | undefined {
  if (name === undefined) return undefined;
  const sub = firstOperand(args);
  if ((name === "npm" || name === "pnpm" || name === "bun") && hasOption(args, "g", ["--global", "--location"])) {
    const verb = commandCandidates(args).find((c) => c.word !== undefined && nodeInstallCommands.has(managerCommand(name, c.word) ?? ""));
    if (verb !== undefined) return `${name} ${verb.word ?? ""} -g changes packages outside the workspace`;
  }
  if (name === "yarn" && sub === "global") return "yarn global changes packages outside the workspace";
  if (name === "uv" && sub === "tool") return "uv tool installs programs outside the workspace";
  if ((name === "pip" || name === "pip3") && hasOption(args, "", ["--user", "--break-system-packages"])) return `${name} installs packages outside the workspace`;
  if (name === "pacman" && args.some((a) => a !== undefined && /^-[SRU]/.test(a))) return "pacman changes system packages";
  const verbs = systemPackageManagers[name];
  if (verbs !== undefined && typeof sub === "string" && verbs.includes(sub)) return `${name} ${sub} changes packages outside the workspace`;
  return undefined;
}

const subcommandIs = (view: CommandView, names: Record<string, readonly string[]>): string | undefined => {
  if (view.name === undefined) return undefined;
  const subs = names[view.name];
  const operandsList = operands(view.args).map((o) => o.value);
  if (subs === undefined || operandsList[0] === undefined) return undefined;
  return subs.includes(operandsList[0]) ? `${view.name} ${operandsList[0]}` : undefined;
};

const named = (names: readonly string[], reason: string) => (view: CommandView): string | undefined =>
  view.name !== undefined && names.includes(view.name) ? `${view.name}: ${reason}` : undefined;

export const riskChecks: readonly RiskCheck[] = [
  { id: "computed-command", check: (v) => (v.name === undefined && v.segment.words.length > 0 ? `the command name is computed at run time (${displayWord(v.segment.words[0] ?? { pieces: [], source: "" })})` : undefined) },
  {
    id: "rm",
    check: ({ name, args }) => {
      if (name !== "rm") return undefined;
      // rm of a pattern or variable is caught by outside-write, which cannot tell where it points.
      // -d (--dir) removes directories too: any flag that reaches beyond named files needs the person.
      return hasOption(args, "rRfd", ["--recursive", "--force", "--dir"]) ? "rm -r/-f/-d deletes directories, recursively or without asking" : undefined;
    },
  },
  { id: "delete", check: (v) => named(["shred", "wipe", "srm"], "destroys files")(v) ?? (v.name === "find" && v.args.includes("-delete") ? "find -delete deletes files" : undefined) },
  { id: "git", check: (v, context) => (v.name === "git" ? git(v, context) : undefined) },
  { id: "recursive-perms", check: ({ name, args }) => (["chmod", "chown", "chgrp"].includes(name ?? "") && hasOption(args, "R", ["--recursive"]) ? `${name} -R changes permissions recursively` : undefined) },
  { id: "piped-program", check: pipedProgram },
  {
    id: "publish",
    check: (v) => {
      if (v.name !== undefined && (packageManagers.has(v.name) || execRunners.has(v.name))) return packageManagerRisk(v.name, v.args);
      const hit = subcommandIs(v, publishers);
      return hit === undefined ? undefined : `${hit} publishes to a registry`;
    },
  },
  { id: "privilege", check: named(["sudo", "doas", "su", "pkexec", "runuser"], "runs with elevated privileges") },
  { id: "disk", check: (v) => named(["dd", "mkfs", "mke2fs", "fdisk", "sfdisk", "parted", "wipefs", "mkswap"], "writes to disks or partitions")(v) ?? (v.name?.startsWith("mkfs.") === true ? `${v.name}: formats a partition` : undefined) },
  {
    id: "power",
    check: (v) =>
      named(["shutdown", "reboot", "halt", "poweroff"], "shuts down or restarts the machine")(v) ??
      (v.name === "systemctl" && v.args.some((a) => ["poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"].includes(a ?? "")) ? "systemctl: shuts down or restarts the machine" : undefined) ??
      ((v.name === "init" || v.name === "telinit") && ["0", "6"].includes(v.args[0] ?? "") ? `${v.name}: shuts down or restarts the machine` : undefined),
  },
  {
    id: "kill",
    check: (v) =>
      named(["killall", "pkill", "killall5", "skill"], "kills processes by name")(v) ??
      (v.name === "kill" ? kill(v) : undefined) ??
      (v.name === "fuser" && hasOption(v.args, "k", ["--kill"]) ? "fuser -k kills the processes using a file" : undefined),
  },
  { id: "outside-write", check: outsideWrite },
  {
    id: "containers",
    check: ({ name, args }) => {
      if (name !== "docker" && name !== "podman") return undefined;
      const [a, b] = operands(args).map((o) => o.value);
      const destructive =
        a === "rm" || a === "rmi" ||
        (["system", "volume", "image", "container", "network", "builder"].includes(a ?? "") && ["prune", "rm"].includes(b ?? "")) ||
        (a === "compose" && b === "down" && hasOption(args, "v", ["--volumes", "--rmi"]));
      return destructive ? `${name} ${a === "rm" || a === "rmi" ? a : `${a} ${b}`} deletes containers, images or volumes` : undefined;
    },
  },
  { id: "cluster", check: (v) => { const hit = subcommandIs(v, { kubectl: ["delete", "drain"], helm: ["uninstall", "delete"] }); return hit === undefined ? undefined : `${hit} changes a cluster`; } },
  { id: "infrastructure", check: (v) => { const hit = subcommandIs(v, { terraform: ["apply", "destroy"], tofu: ["apply", "destroy"], terragrunt: ["apply", "destroy"], pulumi: ["up", "destroy"] }); return hit === undefined ? undefined : `${hit} changes real infrastructure`; } },
  { id: "global-install", check: globalInstall },
  { id: "outside-path", check: outsidePath },
  { id: "interpreter", check: interpreter },
  { id: "environment", check: environment },
];
