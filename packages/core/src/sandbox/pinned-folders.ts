import path from "node:path";
import { contains, type Mask } from "./bwrap-args.js";

/**
 * The folders to mount onto themselves so that nothing holding a mask can be moved: every folder
 * between a writable root (the workspace, settings' writablePaths) and a masked or hidden path
 * in it, each once, shallowest first (a deeper mount made first would be covered by its parent's).
 *
 * Masks are mounts on the paths as they are when a command starts, and a mount travels with its
 * folder: `mv config cfg2` (config/secret.json ignored) or `mv apps node_modules/` would carry
 * the secret to a path the ignore rules no longer match, and the next command would see it. A
 * mount point cannot be renamed or removed (EBUSY), so pinning the folders on the way keeps every
 * masked path where its rule names it. What else the folder holds stays free to change; only a
 * rename across the mount's edge becomes a copy (EXDEV, which mv and most tools fall back from).
 */
export function pinnedFolders(masks: readonly Mask[], writableRoots: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const mask of masks) {
    const root = writableRoots.find((r) => contains(r, mask.path) && r !== mask.path);
    if (root === undefined) continue;
    for (let dir = path.dirname(mask.path); dir !== root && contains(root, dir); dir = path.dirname(dir)) {
      if (folders.has(dir)) break; // its own ancestors were added with it
      folders.add(dir);
    }
  }
  return [...folders].sort((a, b) => depth(a) - depth(b));
}

const depth = (p: string) => p.split(path.sep).length;
