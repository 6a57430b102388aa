import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";
import { afterEach, expect, it } from "vitest";
import { runFromCodeCache } from "./code-cache.js";

/**
 * The loader of `cairn run`'s code-cached script, on small scripts of the same shape the build
 * makes (packages/cli/scripts/run-script.mjs). The end-to-end side, through the real command, is
 * test/e2e/code-cache.test.ts.
 */
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function place() {
  dir = mkdtempSync(path.join(os.tmpdir(), "cairn-code-cache-"));
  return { script: path.join(dir, "run-cached.js"), cache: path.join(dir, "home", "code-cache") };
}

/** A script whose main() answers `answer` (and ends with `code`), in the build's shape. */
const script = (answer: string, code = 0) =>
  `(function (exports, require, module, __filename, __dirname, __cairnImport) {"use strict";
module.exports = {
  installCrashHandlers() {},
  ranTask() { return true; },
  beforeCodeCache() {},
  async main(argv) { globalThis.answer = ${JSON.stringify(answer)} + " " + require("node:path").basename(__filename); return ${code}; },
};
})`;

const caches = (cache: string) => (existsSync(cache) ? readdirSync(cache).filter((n) => n.endsWith(".v8")) : []);

async function run(file: string, cache: string): Promise<{ code: number; answer: string }> {
  const code = await runFromCodeCache(file, cache).main(["run", "x"]);
  return { code, answer: (globalThis as { answer?: string }).answer ?? "" };
}

it("writes the cache after main ends well, then runs from it without writing again", async () => {
  const { script: file, cache } = place();
  writeFileSync(file, script("first"));
  expect(await run(file, cache)).toEqual({ code: 0, answer: "first run-cached.js" });
  const [name] = caches(cache);
  expect(name).toMatch(/^run-[0-9a-f]{32}\.v8$/);
  const written = statSync(path.join(cache, name!));
  expect(written.mode & 0o777).toBe(0o600);
  expect(statSync(cache).mode & 0o777).toBe(0o700);

  expect(await run(file, cache)).toEqual({ code: 0, answer: "first run-cached.js" });
  expect(statSync(path.join(cache, name!)).mtimeMs).toBe(written.mtimeMs);
});

/** A script whose task turns V8's wasm tier-up off, as the shell parser does, and whose beforeCodeCache may turn it back on. */
const flagScript = (putBack: boolean) =>
  `(function (exports, require, module) {"use strict";
const v8 = require("node:v8");
module.exports = {
  installCrashHandlers() {},
  ranTask() { return true; },
  beforeCodeCache() { ${putBack ? 'v8.setFlagsFromString("--wasm-tier-up --wasm-dynamic-tiering");' : ""} },
  async main() { v8.setFlagsFromString("--no-wasm-tier-up --no-wasm-dynamic-tiering"); return 0; },
};
})`;

it("writes the cache once the entry has put back the V8 flags its task changed, and none while they differ (V8 would refuse it at every later start)", async () => {
  const { script: file, cache } = place();
  try {
    writeFileSync(file, flagScript(false));
    expect((await run(file, cache)).code).toBe(0);
    expect(caches(cache)).toEqual([]);
  } finally {
    v8.setFlagsFromString("--wasm-tier-up --wasm-dynamic-tiering");
  }
  writeFileSync(file, flagScript(true));
  expect((await run(file, cache)).code).toBe(0);
  expect(caches(cache)).toHaveLength(1);
  const written = statSync(path.join(cache, caches(cache)[0]!)).mtimeMs;
  expect((await run(file, cache)).code).toBe(0); // accepted: not written again
  expect(statSync(path.join(cache, caches(cache)[0]!)).mtimeMs).toBe(written);
});

it("writes nothing when main fails", async () => {
  const { script: file, cache } = place();
  writeFileSync(file, script("failing", 1));
  expect((await run(file, cache)).code).toBe(1);
  expect(caches(cache)).toEqual([]);
});

it("runs a changed script of the same length as it now is (V8 alone compares only the length)", async () => {
  const { script: file, cache } = place();
  writeFileSync(file, script("AAAA"));
  await run(file, cache);
  writeFileSync(file, script("BBBB"));
  expect(await run(file, cache)).toEqual({ code: 0, answer: "BBBB run-cached.js" });
  expect(caches(cache)).toHaveLength(2);
});

it("ignores a cache others could have written, and a link in its place, then writes its own", async () => {
  const { script: file, cache } = place();
  writeFileSync(file, script("mine"));
  await run(file, cache);
  const [name] = caches(cache);
  const cacheFile = path.join(cache, name!);

  chmodSync(cacheFile, 0o666);
  expect(await run(file, cache)).toEqual({ code: 0, answer: "mine run-cached.js" });
  expect(statSync(cacheFile).mode & 0o777).toBe(0o600);

  const elsewhere = path.join(dir, "elsewhere.v8");
  const planted = Buffer.from("not a cache of this script");
  writeFileSync(elsewhere, planted);
  rmSync(cacheFile);
  symlinkSync(elsewhere, cacheFile);
  expect(await run(file, cache)).toEqual({ code: 0, answer: "mine run-cached.js" });
  expect(statSync(cacheFile, { throwIfNoEntry: false })?.isFile()).toBe(true);
  expect(readFileSync(elsewhere)).toEqual(planted); // the link was replaced, its target untouched
});

it("keeps the newest few caches and removes older ones", async () => {
  const { script: file, cache } = place();
  mkdirSync(cache, { recursive: true, mode: 0o700 });
  for (let i = 0; i < 6; i++) {
    writeFileSync(file, script(`build ${i}`));
    await run(file, cache);
  }
  expect(caches(cache)).toHaveLength(4);
});

it("gives the script an import(), and an import.meta.resolve that finds packages from the script's folder", async () => {
  const { script: file, cache } = place();
  const pkg = path.join(dir, "node_modules", "beside-the-script");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "beside-the-script", main: "entry.js" }));
  writeFileSync(path.join(pkg, "entry.js"), "module.exports = 1;\n");
  writeFileSync(
    file,
    `(function (exports, require, module, __filename, __dirname, __cairnImport) {"use strict";
module.exports = { installCrashHandlers() {}, ranTask() { return true; }, beforeCodeCache() {}, async main() {
  const { sep } = await __cairnImport("node:path");
  globalThis.answer = [sep, __cairnImport.resolve("node:fs"), __cairnImport.resolve("beside-the-script")].join(" ");
  return 0;
} };
})`,
  );
  expect(await run(file, cache)).toEqual({ code: 0, answer: `${path.sep} node:fs ${pathToFileURL(path.join(pkg, "entry.js")).href}` });
});
