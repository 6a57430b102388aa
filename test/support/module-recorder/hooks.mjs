// Module hooks for record.mjs: each resolved URL is appended to the record file as it resolves,
// so the record is complete even when the process exits abruptly.
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

let out;

export function initialize(data) {
  out = data.out;
}

// The built command is bundled (packages/cli/scripts/bundle.mjs): a file of the bundle stands for
// the modules it holds, listed in bundle-inputs.json beside it, and those are recorded too, so a
// record names the same modules whether the command ran bundled or not.
const manifests = new Map();

function bundledModules(url) {
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

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (!result.url.startsWith("node:")) appendFileSync(out, [result.url, ...bundledModules(result.url)].map((line) => `${line}\n`).join(""));
  return result;
}
