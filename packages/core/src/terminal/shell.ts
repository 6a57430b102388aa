import { accessSync, constants } from "node:fs";
import path from "node:path";

/** Shells that take `-c command` with POSIX-like syntax; fish, nushell and csh do not. */
const SH_LIKE = new Set(["bash", "zsh", "sh", "dash", "ksh", "mksh", "ksh93", "ash", "yash"]);

/** The user's shell when it is sh-like, else bash, else sh; undefined when none can run. */
export function pickShell(env: NodeJS.ProcessEnv = process.env, canRun: (file: string) => boolean = isExecutable): string | undefined {
  const user = env.SHELL;
  const candidates = [
    user !== undefined && path.isAbsolute(user) && SH_LIKE.has(path.basename(user)) ? user : undefined,
    "/bin/bash",
    "/bin/sh",
  ];
  return candidates.find((shell): shell is string => shell !== undefined && canRun(shell));
}

/**
 * The arguments that run `command` in `shell` with stderr joined to stdout. One pipe carries both,
 * so the output reads in the order it was written (two pipes read by Node can reorder lines written
 * a microsecond apart). A small `sh` sets up the redirection and then execs the shell with the
 * command untouched as one argument (same process, same group; line numbers in errors unchanged).
 */
export function shellInvocation(shell: string, command: string, canRun: (file: string) => boolean = isExecutable): { file: string; args: string[] } {
  const wrapper = canRun("/bin/sh") ? "/bin/sh" : shell;
  return { file: wrapper, args: ["-c", 'exec "$0" -c "$1" 2>&1', shell, command] };
}

/**
 * The environment of a command: the user's, plus settings that keep tools from waiting for input,
 * opening a pager or editor, or colouring their output.
 */
/** Provider keys Cairn reads; commands run without them. */
export const agentSecrets = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "CAIRN_API_KEY"] as const;

export function commandEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...base,
    CI: "1",
    GIT_TERMINAL_PROMPT: "0",
    // A git command that wants a message (merge, rebase --continue) takes the default one.
    GIT_EDITOR: "true",
    GIT_PAGER: "cat",
    PAGER: "cat",
    npm_config_yes: "true",
    DEBIAN_FRONTEND: "noninteractive",
    PIP_NO_INPUT: "1",
    NO_COLOR: "1",
    TERM: "dumb",
  };
  delete env.FORCE_COLOR;
  // The agent's own credentials are not the project's: a command must not be able to print them.
  for (const name of agentSecrets) delete env[name];
  return env;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
