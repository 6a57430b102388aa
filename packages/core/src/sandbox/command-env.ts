/**
 * A variable whose name says it holds a secret. The model writes the commands, so whatever a
 * command can read, the model can print into the conversation: the person's tokens for GitHub,
 * AWS, npm and the like have no business there unless the person passes them through
 * (settings.json "sandbox": {"passEnv": [...]}). Codex drops KEY, SECRET and TOKEN by default.
 */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASS|CREDENTIAL|JWT|DSN|CONNECTION_STRING|PRIVATE|_PWD$|_PAT$/i;

/**
 * A URL with a password in it (DATABASE_URL=postgres://app:pw@db/app), under whatever name: the
 * name says nothing, the value does. `_PWD$` above keeps PWD and OLDPWD, the shell's own folders.
 */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s:]*:[^/?#@\s]+@/i;

/** Cairn's own endpoints (Redis of the fleet, the model's base URL) may carry a password in the URL. */
const CAIRN_ENDPOINT = /^CAIRN_.*_URL$/;

/**
 * Addresses of the person's agents (session bus, ssh-agent, gpg-agent) and display (X11, Wayland):
 * their sockets are masked where they are files, and a command must not go looking for them. X11
 * listens on an abstract socket too, which a network namespace alone closes (network off); without
 * DISPLAY and the cookie in XAUTHORITY (hidden), a client has neither the address nor the key.
 */
const AGENT_SOCKETS = ["DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY"] as const;

/**
 * Whether `name` is passed by one of the person's `passEnv` entries: an exact name, or a prefix
 * ending in `*` ("AWS_*").
 */
function passedThrough(name: string, passEnv: readonly string[]): boolean {
  return passEnv.some((entry) => (entry.endsWith("*") ? name.startsWith(entry.slice(0, -1)) : name === entry));
}

/** Whether a command the model wrote should go without the variable `name` holding `value` (before passEnv is applied). */
export function isSecretVariable(name: string, value = ""): boolean {
  return SECRET_NAME.test(name) || CAIRN_ENDPOINT.test(name) || URL_WITH_PASSWORD.test(value.trim());
}

/**
 * The environment a sandboxed command gets: without the agents' socket addresses and, with
 * `dropSecrets` (commands the model wrote, not the MCP servers the person configured with their
 * own tokens), without every variable named like a secret or holding a URL with a password,
 * except those in `passEnv`.
 */
export function sandboxedEnv(base: NodeJS.ProcessEnv, options: { dropSecrets: boolean; passEnv: readonly string[] }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    const drop = (AGENT_SOCKETS as readonly string[]).includes(name) || (options.dropSecrets && isSecretVariable(name, value ?? ""));
    if (drop && !passedThrough(name, options.passEnv)) continue;
    env[name] = value;
  }
  return env;
}
