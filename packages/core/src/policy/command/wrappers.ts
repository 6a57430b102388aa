import { parseOptions, type OptionSpec } from "./options.js";
import { anyWord, basenameWord, replaceWithHole, staticValue, type Word } from "./words.js";

/**
 * Commands that run another command. The wrapper is a segment of its own and so is every
 * command it runs, so rules see both `sudo rm -rf /` and `rm -rf /`.
 *
 *   sh bash zsh dash ksh mksh ash rbash -c SCRIPT   SCRIPT is parsed again
 *   sh/bash/… with no -c and no FILE, or -s         reads stdin: a fixed heredoc/here-string is parsed
 *                                                   again; a pipe marks it as running a generated program
 *   sh/bash/… FILE, source FILE, . FILE             not followed (a file); /dev/stdin counts as stdin;
 *                                                   `bash <(…)`, `source <(…)` run a generated program
 *   fish -c                                         refused: fish syntax is not bash
 *   eval ARGS                                       ARGS joined with spaces, parsed again
 *   trap ACTION SIGNAL…, alias NAME=TEXT            ACTION / TEXT parsed again (they run later)
 *   su -c SCRIPT, flock -c SCRIPT, script -c SCRIPT SCRIPT parsed again
 *   watch ARGS                                      ARGS joined, parsed again (watch -x: run directly)
 *   xargs [opts] CMD ARGS                           CMD ARGS + the arguments read from stdin (-I: in place)
 *   find … -exec/-execdir/-ok/-okdir CMD … ; or +   each CMD, with {} as any value
 *   env [opts] [NAME=VALUE…] CMD                    (env -S refused)
 *   sudo [opts] [NAME=VALUE…] CMD, doas, pkexec     (sudo -s/-i CMD: also parsed as a script)
 *   timeout [opts] DURATION CMD, nice, nohup, time, command, builtin, exec, stdbuf, setsid,
 *   ionice, chroot DIR CMD, taskset MASK CMD, coproc, busybox APPLET, unbuffer, flock FILE CMD
 *   strace/ltrace [opts] CMD, unshare [opts] CMD    (strace -p: no command)
 *   parallel, screen, at, systemd-run, nsenter, valgrind, gdb, tmux new/send-keys, … (unfollowedRunners)
 *                                                   refused: the command they run cannot be followed
 *
 * Any option that is not known, or computed at run time, makes the wrapper impossible to follow;
 * the caller refuses such commands when rules apply.
 */
export type Unwrapped =
  | {
      via: string;
      commands: Word[][];
      scripts: string[];
      /** A shell reading its program from stdin (no -c, no script file, or -s). */
      programFromStdin: boolean;
      /** The script file a shell or `source` runs. */
      programFile?: Word;
    }
  | { via: string; problem: string };

const shells = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash"]);

const shellOptions: OptionSpec = {
  flags: "abcefhikmnprstuvxlBCEHPTD",
  withValue: "oO",
  plus: true,
  long: ["--login", "--norc", "--noprofile", "--posix", "--restricted", "--verbose", "--noediting", "--debugger", "--help", "--version"],
  longWithValue: ["--rcfile", "--init-file"],
};

/** What `words` runs, when its first word names a wrapper; undefined for any other command. */
export function unwrap(words: readonly Word[]): Unwrapped | undefined {
  const first = words[0];
  const name = first === undefined ? undefined : staticValue(basenameWord(first));
  if (name === undefined) return undefined;
  if (shells.has(name)) return shell(words, name);
  const handler = handlers[name];
  return handler?.(words, name);
}

type Handler = (words: readonly Word[], name: string) => Unwrapped | undefined;

const runs = (via: string, command: readonly Word[]): Unwrapped | undefined =>
  command.length === 0 ? undefined : { via, commands: [[...command]], scripts: [], programFromStdin: false };
const script = (via: string, text: string): Unwrapped => ({ via, commands: [], scripts: [text], programFromStdin: false });
const problem = (via: string, text: string): Unwrapped => ({ via, problem: text });

/** A wrapper whose options are followed directly by the command it runs. */
function prefix(spec: OptionSpec, skipOperands = 0): Handler {
  return (words, name) => {
    const parsed = parseOptions(words, 1, name, spec);
    if ("problem" in parsed) return problem(name, parsed.problem);
    return runs(name, words.slice(parsed.next + skipOperands));
  };
}

function shell(words: readonly Word[], name: string): Unwrapped | undefined {
  const parsed = parseOptions(words, 1, name, shellOptions);
  if ("problem" in parsed) return problem(name, parsed.problem);
  if (parsed.seen.has("-c")) {
    const text = staticValue(words[parsed.next]);
    if (text === undefined) {
      return problem(`${name} -c`, words[parsed.next] === undefined ? `${name} -c has no script` : `the script given to ${name} -c is computed at run time`);
    }
    return script(`${name} -c`, text);
  }
  const file = words[parsed.next];
  if (parsed.seen.has("-s") || file === undefined) return { via: name, commands: [], scripts: [], programFromStdin: true };
  return runsFile(name, file);
}

/** `bash FILE`, `source FILE`: not followed, except that /dev/stdin is reading stdin. */
function runsFile(via: string, file: Word): Unwrapped {
  const fromStdin = /^(\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/.test(staticValue(file) ?? "");
  return { via, commands: [], scripts: [], programFromStdin: fromStdin, programFile: file };
}

function joinedScript(words: readonly Word[], via: string): Unwrapped {
  const values = words.map(staticValue);
  if (values.some((v) => v === undefined)) return problem(via, `the text given to ${via} is computed at run time`);
  return script(via, values.join(" "));
}

/** Wrappers that run `-c SCRIPT` and otherwise do something this module need not follow. */
function dashC(spec: OptionSpec, commandAfterOperand: boolean): Handler {
  return (words, name) => {
    const parsed = parseOptions(words, 1, name, spec);
    if ("problem" in parsed) return problem(name, parsed.problem);
    const text = parsed.seen.get("-c") ?? parsed.seen.get("--command");
    if (text !== undefined) return script(`${name} -c`, text);
    return commandAfterOperand ? runs(name, words.slice(parsed.next + 1)) : undefined;
  };
}

const xargsOptions: OptionSpec = {
  flags: "0prtxo",
  withValue: "aEdILnPs",
  attachedValue: "eil",
  long: ["--null", "--no-run-if-empty", "--interactive", "--verbose", "--exit", "--open-tty", "--show-limits"],
  longWithValue: ["--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"],
  longAttachedValue: ["--replace", "--eof", "--max-lines"],
};

function xargs(words: readonly Word[]): Unwrapped | undefined {
  const parsed = parseOptions(words, 1, "xargs", xargsOptions);
  if ("problem" in parsed) return problem("xargs", parsed.problem);
  const command = words.slice(parsed.next);
  if (command.length === 0) return undefined;
  const replace = parsed.seen.get("-I") ?? parsed.seen.get("-i") ?? parsed.seen.get("--replace");
  if (replace === undefined) return runs("xargs", [...command, anyWord("…")]);
  const marker = replace === "" ? "{}" : replace;
  return runs("xargs", command.map((w) => replaceWithHole(w, marker, marker)));
}

const execActions = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

function find(words: readonly Word[]): Unwrapped | undefined {
  const commands: Word[][] = [];
  for (let i = 1; i < words.length; i++) {
    const value = staticValue(words[i]);
    if (value === undefined) {
      return problem("find", `find's argument "${words[i]?.source ?? ""}" is computed at run time (it could be -exec); quote patterns such as -name '*.ts'`);
    }
    if (!execActions.has(value)) continue;
    const end = words.findIndex((w, j) => j > i && (staticValue(w) === ";" || staticValue(w) === "+"));
    if (end < 0) return problem("find", `find ${value} has no closing ';' or '+'`);
    const command = words.slice(i + 1, end).map((w) => replaceWithHole(w, "{}", "{}"));
    if (command.length === 0) return problem("find", `find ${value} has no command`);
    commands.push(command);
    i = end;
  }
  return commands.length === 0 ? undefined : { via: "find -exec", commands, scripts: [], programFromStdin: false };
}

const assignmentPattern = /^[A-Za-z_][A-Za-z0-9_]*=/;

function skipAssignments(words: readonly Word[], from: number): number {
  let i = from;
  while (i < words.length && assignmentPattern.test(staticValue(words[i]) ?? "")) i++;
  return i;
}

function env(words: readonly Word[]): Unwrapped | undefined {
  const parsed = parseOptions(words, 1, "env", {
    flags: "i0v",
    withValue: "uCS",
    long: ["--ignore-environment", "--null", "--debug", "--block-signal", "--default-signal", "--ignore-signal", "--list-signal-handling"],
    longWithValue: ["--unset", "--chdir", "--split-string"],
  });
  if ("problem" in parsed) return problem("env", parsed.problem);
  if (parsed.seen.has("-S") || parsed.seen.has("--split-string")) return problem("env", "env -S (--split-string) cannot be checked; write the command out");
  let start = parsed.next;
  if (staticValue(words[start]) === "-") start++; // `env -` is `env -i`
  return runs("env", words.slice(skipAssignments(words, start)));
}

function sudo(words: readonly Word[]): Unwrapped | undefined {
  const parsed = parseOptions(words, 1, "sudo", {
    flags: "AbEeHiKklnPSsVvBN",
    withValue: "uCDghprtTUR",
    long: ["--askpass", "--background", "--bell", "--preserve-env", "--edit", "--set-home", "--login", "--remove-timestamp", "--reset-timestamp", "--list", "--non-interactive", "--preserve-groups", "--stdin", "--shell", "--validate", "--version", "--help"],
    longWithValue: ["--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type", "--command-timeout", "--other-user", "--chroot"],
  });
  if ("problem" in parsed) return problem("sudo", parsed.problem);
  if (parsed.seen.has("-e") || parsed.seen.has("--edit")) return undefined; // sudoedit: the operands are files
  const command = words.slice(skipAssignments(words, parsed.next));
  const result = runs("sudo", command);
  const viaShell = ["-s", "-i", "--shell", "--login"].some((o) => parsed.seen.has(o));
  if (result === undefined || !viaShell || "problem" in result) return result;
  // sudo -s CMD hands CMD to the shell's -c: check it as a script too.
  const joined = joinedScript(command, "sudo -s");
  return "problem" in joined ? joined : { ...result, scripts: joined.scripts };
}

/** strace/ltrace CMD; with -p (attach to a running process) there is no command. */
function traced(spec: OptionSpec): Handler {
  return (words, name) => {
    const parsed = parseOptions(words, 1, name, spec);
    if ("problem" in parsed) return problem(name, parsed.problem);
    if (parsed.seen.has("-p") || parsed.seen.has("--attach")) return undefined;
    return runs(name, words.slice(parsed.next));
  };
}

/**
 * Programs that run a command Cairn does not follow (in another session, later, in another
 * namespace, under a debugger, …): refused, so they need approval and no rule vouches for them.
 */
const unfollowedRunners = [
  "screen", "at", "batch", "systemd-run", "nsenter", "firejail", "bwrap", "proxychains", "proxychains4", "torsocks", "torify",
  "faketime", "fakeroot", "valgrind", "gdb", "lldb", "catchsegv", "xvfb-run", "dbus-run-session", "rlwrap", "sshpass", "entr",
  "scl", "nix-shell", "direnv", "daemonize", "start-stop-daemon", "runcon", "sg", "chrt", "prlimit", "numactl", "cpulimit",
  "runuser", "perf", "expect", "chpst", "softlimit", "setpriv", "capsh", "machinectl", "schroot",
];

function opaqueRunner(_words: readonly Word[], name: string): Unwrapped {
  return problem(name, `${name} runs commands that Cairn cannot follow, so they cannot be checked; run the command directly`);
}

/** tmux ls and friends only look; new-session, send-keys, run-shell and the rest run commands. */
function tmuxReadOnly(words: readonly Word[]): boolean {
  const sub = words.slice(1).map(staticValue).find((a) => a === undefined || !a.startsWith("-"));
  const flagsOnly = words.slice(1).every((w) => staticValue(w) === "-V");
  return flagsOnly || (sub !== undefined && /^(ls|list-\w+|has-session|has|display-message|display|info|show-options|show)$/.test(sub));
}

const handlers: Record<string, Handler> = {
  fish: (words) => {
    const parsed = parseOptions(words, 1, "fish", { flags: "ilnNPv", withValue: "cCdfo", long: ["--login", "--interactive", "--no-execute", "--private", "--version", "--no-config"], longWithValue: ["--command", "--init-command", "--debug", "--features"] });
    if ("problem" in parsed) return problem("fish", parsed.problem);
    const runsCode = ["-c", "-C", "--command", "--init-command"].some((o) => parsed.seen.has(o));
    return runsCode ? problem("fish -c", "fish scripts cannot be checked (fish is not bash); use bash -c or run the command directly") : undefined;
  },
  source: (words) => (words[1] === undefined ? undefined : runsFile("source", words[1])),
  ".": (words) => (words[1] === undefined ? undefined : runsFile(".", words[1])),
  alias: (words) => {
    // In a persistent interactive shell an alias runs later: its text is checked now.
    const scripts: string[] = [];
    for (const word of words.slice(1)) {
      const value = staticValue(word);
      if (value === undefined) return problem("alias", "the text of an alias is computed at run time");
      const eq = value.indexOf("=");
      if (eq > 0) scripts.push(value.slice(eq + 1));
    }
    return scripts.length === 0 ? undefined : { via: "alias", commands: [], scripts, programFromStdin: false };
  },
  trap: (words) => {
    const parsed = parseOptions(words, 1, "trap", { flags: "lpP" });
    if ("problem" in parsed) return problem("trap", parsed.problem);
    if (words.length - parsed.next < 2) return undefined;
    const action = staticValue(words[parsed.next]);
    if (action === undefined) return problem("trap", "the action given to trap is computed at run time");
    return action === "" || action === "-" ? undefined : script("trap", action);
  },
  eval: (words) => (words.length < 2 ? undefined : joinedScript(words.slice(1), "eval")),
  xargs,
  find,
  env,
  sudo,
  doas: (words, name) => {
    const parsed = parseOptions(words, 1, name, { flags: "nsL", withValue: "uC" });
    if ("problem" in parsed) return problem(name, parsed.problem);
    return runs(name, words.slice(parsed.next));
  },
  pkexec: prefix({ flags: "", long: ["--disable-internal-agent", "--keep-cwd", "--version", "--help"], longWithValue: ["--user"] }),
  su: dashC({ flags: "lmpfP", withValue: "cgGsw", long: ["--login", "--preserve-environment", "--pty", "--help", "--version"], longWithValue: ["--command", "--session-command", "--group", "--supp-group", "--shell", "--whitelist-environment"] }, false),
  flock: dashC({ flags: "sexunoFv", withValue: "wEc", long: ["--shared", "--exclusive", "--unlock", "--nonblock", "--close", "--no-fork", "--verbose"], longWithValue: ["--timeout", "--conflict-exit-code", "--command"] }, true),
  script: dashC({ flags: "aefqkh", withValue: "cEIOTBmt", long: ["--append", "--return", "--flush", "--force", "--quiet", "--help", "--version"], longWithValue: ["--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format", "--output-limit"] }, false),
  watch: (words) => {
    const parsed = parseOptions(words, 1, "watch", { flags: "bcCdegprtwx", withValue: "nq", long: ["--beep", "--color", "--no-color", "--differences", "--errexit", "--chgexit", "--precise", "--no-rerun", "--no-title", "--no-wrap", "--exec"], longWithValue: ["--interval", "--equexit"] });
    if ("problem" in parsed) return problem("watch", parsed.problem);
    const command = words.slice(parsed.next);
    if (command.length === 0) return undefined;
    if (parsed.seen.has("-x") || parsed.seen.has("--exec")) return runs("watch", command);
    return joinedScript(command, "watch");
  },
  timeout: prefix({ flags: "v", withValue: "ks", long: ["--preserve-status", "--foreground", "--verbose"], longWithValue: ["--kill-after", "--signal"] }, 1),
  nice: prefix({ withValue: "n", longWithValue: ["--adjustment"], numeric: true }),
  nohup: prefix({}),
  time: prefix({ flags: "pvqa", withValue: "of", long: ["--portability", "--verbose", "--quiet", "--append"], longWithValue: ["--output", "--format"] }),
  command: prefix({ flags: "pvV" }),
  builtin: prefix({}),
  exec: prefix({ flags: "cl", withValue: "a" }),
  stdbuf: prefix({ withValue: "ioe", longWithValue: ["--input", "--output", "--error"] }),
  setsid: prefix({ flags: "cfw", long: ["--ctty", "--fork", "--wait"] }),
  ionice: (words) => {
    const parsed = parseOptions(words, 1, "ionice", { flags: "t", withValue: "cnpPu", long: ["--ignore"], longWithValue: ["--class", "--classdata", "--pid", "--pgid", "--uid"] });
    if ("problem" in parsed) return problem("ionice", parsed.problem);
    if (["-p", "-P", "-u", "--pid", "--pgid", "--uid"].some((o) => parsed.seen.has(o))) return undefined;
    return runs("ionice", words.slice(parsed.next));
  },
  chroot: prefix({ long: ["--skip-chdir"], longWithValue: ["--userspec", "--groups"] }, 1),
  taskset: (words) => {
    const parsed = parseOptions(words, 1, "taskset", { flags: "acp", long: ["--all-tasks", "--cpu-list", "--pid"] });
    if ("problem" in parsed) return problem("taskset", parsed.problem);
    if (parsed.seen.has("-p") || parsed.seen.has("--pid")) return undefined;
    return runs("taskset", words.slice(parsed.next + 1));
  },
  coproc: (words) => runs("coproc", words.slice(1)),
  busybox: (words) => (staticValue(words[1])?.startsWith("-") === true ? undefined : runs("busybox", words.slice(1))),
  unbuffer: prefix({ flags: "p" }),
  parallel: () => problem("parallel", "GNU parallel builds its command lines at run time, so they cannot be checked; run the commands directly"),
  strace: traced({
    flags: "cCdDfFhikqrtTvVwxyYzZn",
    withValue: "abeEIoOpPsSuUX",
    long: ["--summary-only", "--summary", "--follow-forks", "--output-separately", "--daemonize", "--quiet", "--relative-timestamps", "--absolute-timestamps", "--syscall-times", "--no-abbrev", "--verbose", "--version", "--help", "--seccomp-bpf", "--stack-trace", "--decode-fds", "--decode-pids", "--instruction-pointer", "--summary-wall-clock", "--successful-only", "--failed-only", "--kill-on-exit"],
    longWithValue: ["--trace", "--signal", "--status", "--abbrev", "--raw", "--read", "--write", "--quiet", "--output", "--attach", "--trace-path", "--string-limit", "--summary-sort-by", "--summary-columns", "--user", "--env", "--columns", "--const-print-style", "--inject", "--fault"],
  }),
  ltrace: traced({ flags: "bcCfhiLrStTV", withValue: "aAeDFlnopsuwx", long: ["--demangle", "--help", "--version", "--no-signals"], longWithValue: ["--align", "--output", "--library", "--indent", "--config"] }),
  unshare: prefix({
    flags: "frcl",
    withValue: "RwSG",
    attachedValue: "muinpUCT",
    long: ["--fork", "--map-root-user", "--map-current-user", "--keep-caps", "--load-interp"],
    longWithValue: ["--propagation", "--setgroups", "--root", "--wd", "--setuid", "--setgid", "--map-user", "--map-group", "--map-users", "--map-groups", "--monotonic", "--boottime"],
    longAttachedValue: ["--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time", "--mount-proc", "--kill-child", "--map-auto"],
  }),
  ...Object.fromEntries(unfollowedRunners.map((name) => [name, opaqueRunner])),
  tmux: (words, name) => (tmuxReadOnly(words) ? undefined : opaqueRunner(words, name)),
  crontab: (words, name) => (words.slice(1).every((w) => /^-[lu]/.test(staticValue(w) ?? "") || staticValue(w) === "root") ? undefined : opaqueRunner(words, name)),
};
