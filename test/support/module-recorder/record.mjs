/**
 * Preload that records every module a Node process loads: `node --import <this file>` with
 * CAIRN_RECORD_MODULES=<file>. ES modules are seen by a resolve hook (module.register; a worker
 * started from source gets it too), CommonJS ones by require.cache at exit, and the modules of
 * `cairn run`'s code-cached script (packages/cli/scripts/run-script.mjs) as each first runs; the
 * file gets one URL or path per line.
 */
import { register } from "node:module";
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import workerThreads from "node:worker_threads";
import { bundledModules } from "./bundle-manifest.mjs";

const out = process.env.CAIRN_RECORD_MODULES;
if (out) {
  register("./hooks.mjs", import.meta.url, { data: { out } });
  globalThis.__cairnRecordModule = (dir, relative) => {
    const url = pathToFileURL(path.resolve(dir, relative)).href;
    appendFileSync(out, [url, ...bundledModules(url)].map((line) => `${line}\n`).join(""));
  };
  // A worker started from source (the exact tokenizer's) runs no preload: its code gets the same
  // resolve hook first.
  const hooks = new URL("./hooks.mjs", import.meta.url).href;
  const { Worker } = workerThreads;
  workerThreads.Worker = class extends Worker {
    constructor(source, options) {
      const recorded = `require("node:module").register(${JSON.stringify(hooks)}, { data: { out: ${JSON.stringify(out)} } });\n${source}`;
      super(options?.eval ? recorded : source, options);
    }
  };
  const require = createRequire(import.meta.url);
  process.on("exit", () => {
    const paths = Object.keys(require.cache);
    if (paths.length > 0) appendFileSync(out, `${paths.join("\n")}\n`);
  });
}
