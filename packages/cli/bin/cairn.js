#!/usr/bin/env node
import { statSync } from "node:fs";
import v8 from "node:v8";

// WebAssembly is compiled with V8's baseline compiler only, as if Node were started with
// --liftoff-only (unless it was started with a tiering flag of its own). Node's default tiers hot
// wasm functions up to the optimising compiler on background threads: for the HTTP parser of
// Node's fetch (llhttp, wasm) that alone was ~50 ms of a one-turn task's CPU, for a parse speed a
// model's stream never needs. Pushed onto execArgv so that the code that loads wasm sees the
// choice as made (policy/command/bash-wasm.ts) and forked Node processes inherit it.
if (!process.execArgv.some((arg) => /^--(no-)?(liftoff-only|wasm-tier-up|wasm-dynamic-tiering)\b/.test(arg))) {
  v8.setFlagsFromString("--liftoff-only");
  process.execArgv.push("--liftoff-only");
}

// `npm run build` bundles the command into dist/bundle (scripts/bundle.mjs): ~15 files to load
// instead of ~370 modules, ~0.2 s less CPU on every run. The bundle is used only while it is newer
// than the last compile of any package it holds, so after a `tsc -b` alone the compiled modules run.
const mtime = (relative) => statSync(new URL(relative, import.meta.url), { throwIfNoEntry: false })?.mtimeMs;
const bundled = mtime("../dist/bundle/main.js");
const compiled = ["../tsconfig.tsbuildinfo", "../../core/tsconfig.tsbuildinfo", "../../host/tsconfig.tsbuildinfo", "../../web/tsconfig.tsbuildinfo"].map((f) => mtime(f) ?? 0);
const current = bundled !== undefined && compiled.every((t) => bundled >= t);
const { installCrashHandlers, main } = await import(current ? "../dist/bundle/main.js" : "../dist/main.js");

const argv = process.argv.slice(2);
installCrashHandlers(argv);
process.exitCode = await main(argv);
