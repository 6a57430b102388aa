import { realpathSync, statSync } from "node:fs";
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
  ".config/gh",
  ".azure",
  ".pypirc",
  ".cargo/credentials",
  ".cargo/credentials.toml",
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
    let real: string;
    try {
      real = realpathSync(candidate);
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
