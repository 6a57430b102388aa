import { lstatSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { Mask } from "./bwrap-args.js";

/** Credential files and folders in the home folder that no command of the agent needs to read. */
export const credentialPaths = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gcloud",
  ".docker",
  ".netrc",
  ".npmrc",
  ".kube",
  ".git-credentials",
  ".config/git/credentials",
  ".config/gh",
  ".azure",
  ".pypirc",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  // Other agents' and assistants' logins.
  ".claude/.credentials.json",
  ".codex/auth.json",
  ".config/github-copilot",
  ".gemini/oauth_creds.json",
  // Cloud and infrastructure command lines.
  ".boto",
  ".s3cfg",
  ".config/doctl",
  ".terraform.d/credentials.tfrc.json",
  ".config/rclone",
  ".oci",
  ".config/hub",
  ".fly",
  ".config/sops",
  ".kaggle",
  ".config/solana",
  // Tokens of command lines built on configstore (firebase-tools and others).
  ".config/configstore",
  // The X server's cookie: with it, any client that reaches the display (an abstract socket, with network on) can type into the person's terminals.
  ".Xauthority",
  ".vault-token",
  ".pgpass",
  ".my.cnf",
  // Package managers' publishing credentials.
  ".gem/credentials",
  ".m2/settings.xml",
  ".m2/settings-security.xml",
  ".gradle/gradle.properties",
  ".nuget/NuGet/NuGet.Config",
  ".config/NuGet/NuGet.Config",
  ".composer/auth.json",
  ".config/composer/auth.json",
  ".yarnrc.yml",
  ".huggingface/token",
  ".cache/huggingface/token",
  // Keyrings, password stores, browser profiles (cookies, saved passwords).
  ".local/share/keyrings",
  ".password-store",
  ".config/google-chrome",
  ".config/chromium",
  ".mozilla",
  ".config/BraveSoftware",
  // Histories hold pasted tokens and passwords typed on command lines.
  ".bash_history",
  ".zsh_history",
  ".zhistory",
  ".histfile",
  ".local/share/fish/fish_history",
  ".python_history",
  ".node_repl_history",
  ".psql_history",
  ".mysql_history",
  ".sqlite_history",
  ".rediscli_history",
  ".lesshst",
  // Cairn's default home, when CAIRN_HOME points elsewhere (CAIRN_HOME itself is always hidden).
  ".cairn",
] as const;

/**
 * Files in CAIRN_HOME hidden on their own as well, for when CAIRN_HOME itself cannot be: it holds
 * the workspace (a fleet worker's checkouts are under CAIRN_HOME/fleet). The fleet's secret signs
 * jobs; a command that read it could give every worker orders.
 */
export const cairnHomeSecretFiles = ["fleet-secret"] as const;

/**
 * Sockets and socket folders of the host that hand out more than the sandbox allows: the session
 * bus and per-user agents (/run/user/<uid>: systemd --user starts anything outside the sandbox),
 * Docker, Podman and containerd (a container with / mounted), the system bus and systemd's private
 * socket (services as root). Masked where they exist; a socket elsewhere on disk stays reachable.
 */
export const hostSocketPaths = [
  "/run/user",
  "/run/docker.sock",
  "/var/run/docker.sock",
  "/run/podman",
  "/run/containerd",
  "/run/dbus/system_bus_socket",
  "/run/systemd/private",
] as const;

/** `~/x` and `~` against the home folder; other relative paths against it too (settings hold no workspace-relative paths). */
export function expandHome(entry: string, home: string): string {
  if (entry === "~") return home;
  if (entry.startsWith("~/")) return path.join(home, entry.slice(2));
  return path.resolve(home, entry);
}

/**
 * The masks for paths that exist (a missing one has nothing to hide, and bubblewrap could not
 * create its mount point on the read-only root), at their real location so a linked ~/.ssh is
 * hidden where it really is.
 */
export function existingMasks(paths: readonly string[]): Mask[] {
  const masks: Mask[] = [];
  const seen = new Set<string>();
  for (const candidate of paths) {
    // Most listed paths do not exist: a failed lstat costs far less than a thrown realpath error.
    if (lstatSync(candidate, { throwIfNoEntry: false }) === undefined) continue;
    let real: string;
    try {
      real = realpathSync.native(candidate);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    masks.push({ path: real, kind: statSync(real).isDirectory() ? "dir" : "file" });
  }
  return masks;
}

/** Real paths of existing folders (writablePaths); missing ones are skipped. */
export function existingFolders(paths: readonly string[]): string[] {
  return existingMasks(paths)
    .filter((m) => m.kind === "dir")
    .map((m) => m.path);
}
