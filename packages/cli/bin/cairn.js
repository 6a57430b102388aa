#!/usr/bin/env node
// CommonJS (bin/package.json): `cairn run` and `resume` then never start Node's ES module loader,
// ~8 ms of CPU on every run. Other commands import their ES module bundle as before.
"use strict";
const { statSync } = require("node:fs");
const path = require("node:path");

// `npm run build` bundles the command into dist/bundle (scripts/bundle.mjs): ~15 files to load
// instead of ~370 modules, ~0.2 s less CPU on every run. The bundle is used only while it is newer
// than the last compile of any package it holds, so after a `tsc -b` alone the compiled modules run.
const mtime = (relative) => statSync(path.join(__dirname, relative), { throwIfNoEntry: false })?.mtimeMs;
const compiled = ["../tsconfig.tsbuildinfo", "../../core/tsconfig.tsbuildinfo", "../../host/tsconfig.tsbuildinfo", "../../web/tsconfig.tsbuildinfo"].map((f) => mtime(f) ?? 0);
const current = (relative) => {
  const built = mtime(relative);
  return built !== undefined && compiled.every((t) => built >= t);
};

const argv = process.argv.slice(2);
// `cairn run` and `cairn resume` run their own bundle from a V8 code cache (src/code-cache.ts, built
// as run-loader.cjs): ~90 ms less compiling.
const entry =
  (argv[0] === "run" || argv[0] === "resume") && current("../dist/bundle/run-cached.js") && current("../dist/bundle/run-loader.cjs")
    ? Promise.resolve(require("../dist/bundle/run-loader.cjs").runFromCodeCache(path.join(__dirname, "../dist/bundle/run-cached.js")))
    : import(current("../dist/bundle/main.js") ? "../dist/bundle/main.js" : "../dist/main.js");

entry.then(async ({ installCrashHandlers, main }) => {
  installCrashHandlers(argv);
  process.exitCode = await main(argv);
});
