import { z } from "zod";

/**
 * How commands are confined. `required` is workspace-write that refuses to run at all where the
 * sandbox cannot start, instead of falling back to approval rules alone.
 */
export const sandboxModes = ["workspace-write", "read-only", "off", "required"] as const;
export type SandboxMode = (typeof sandboxModes)[number];

export const sandboxNetworks = ["on", "off"] as const;
export type SandboxNetwork = (typeof sandboxNetworks)[number];

/** settings.json `"sandbox"`: every key optional; flags and CAIRN_SANDBOX win over `mode`. */
export const sandboxSettingsSchema = z
  .object({
    mode: z.enum(sandboxModes),
    /** "off" cuts every connection, loopback to the host's servers included. */
    network: z.enum(sandboxNetworks),
    /**
     * With network on, commands reach the outside world but not this machine's loopback (servers
     * on 127.0.0.1: a database, a dev server, the fleet's Redis, `cairn web`). true shares the
     * machine's network as it is, all of them included.
     */
    allowLocalhost: z.boolean(),
    /** More files or folders commands must not see (besides CAIRN_HOME and the credential folders); `~/` is the home folder. */
    hiddenPaths: z.array(z.string().min(1)),
    /** More folders commands may write to (besides the workspace and a private /tmp), e.g. "~/.npm" for npm's cache. */
    writablePaths: z.array(z.string().min(1)),
    /**
     * Variables commands keep although their names look like secrets (KEY, SECRET, TOKEN,
     * PASSWORD, PASSWD, CREDENTIAL, CAIRN_*_URL), which commands otherwise run without: exact
     * names, or a prefix ending in `*` ("AWS_*").
     */
    passEnv: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, "a variable name, or a prefix ending in *")),
  })
  .partial();

export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

/** What a host asked for, with every choice made (flags > CAIRN_SANDBOX > settings > default). */
export type SandboxRequest = {
  mode: SandboxMode;
  network: SandboxNetwork;
  /** With network on: share the machine's network, its loopback servers included. */
  allowLocalhost?: boolean;
  hiddenPaths: string[];
  writablePaths: string[];
  /** Secret-looking variables commands keep (settings' passEnv). */
  passEnv?: string[];
};

export function isSandboxMode(value: string): value is SandboxMode {
  return (sandboxModes as readonly string[]).includes(value);
}

/**
 * The request from a flag, the environment and settings. Returns an error line naming the source
 * when a flag or CAIRN_SANDBOX holds an unknown mode.
 */
export function sandboxRequest(
  flag: string | undefined,
  fromEnv: string | undefined,
  settings: SandboxSettings | undefined,
): { ok: true; request: SandboxRequest } | { ok: false; error: string } {
  const envMode = fromEnv?.trim() === "" ? undefined : fromEnv?.trim();
  for (const [value, source] of [
    [flag, "--sandbox"],
    [envMode, "CAIRN_SANDBOX"],
  ] as const) {
    if (value !== undefined && !isSandboxMode(value)) {
      return { ok: false, error: `${source} must be one of ${sandboxModes.join(", ")}, got "${value}".` };
    }
  }
  const mode = (flag ?? envMode ?? settings?.mode ?? "workspace-write") as SandboxMode;
  return {
    ok: true,
    request: {
      mode,
      network: settings?.network ?? "on",
      allowLocalhost: settings?.allowLocalhost ?? false,
      hiddenPaths: settings?.hiddenPaths ?? [],
      writablePaths: settings?.writablePaths ?? [],
      passEnv: settings?.passEnv ?? [],
    },
  };
}
