// The built command is bundled (packages/cli/scripts/bundle.mjs): a file of the bundle stands for
// the modules it holds, listed in bundle-inputs.json beside it, and those are recorded too, so a
// record names the same modules whether the command ran bundled or not.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const manifests = new Map();

/** The URLs of the modules a bundle file holds (none for a file that is not one). */
export function bundledModules(url) {
  if (!url.startsWith("file:")) return [];
  const file = fileURLToPath(url);
  const dir = path.dirname(file);
  if (!manifests.has(dir)) {
    try {
      manifests.set(dir, JSON.parse(readFileSync(path.join(dir, "bundle-inputs.json"), "utf8")));
    } catch {
      manifests.set(dir, undefined);
    }
  }
  const inputs = manifests.get(dir)?.[path.basename(file)] ?? [];
  return inputs.map((input) => pathToFileURL(path.resolve(dir, input)).href);
}
