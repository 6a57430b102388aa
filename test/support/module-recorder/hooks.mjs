// Module hooks for record.mjs: each resolved URL is appended to the record file as it resolves,
// so the record is complete even when the process exits abruptly.
import { appendFileSync } from "node:fs";
import { bundledModules } from "./bundle-manifest.mjs";

let out;

export function initialize(data) {
  out = data.out;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (!result.url.startsWith("node:")) appendFileSync(out, [result.url, ...bundledModules(result.url)].map((line) => `${line}\n`).join(""));
  return result;
}
