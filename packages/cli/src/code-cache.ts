import { createHash } from "node:crypto";
import { isAscii } from "node:buffer";
import { closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import { cairnHome } from "@cairn/core/cairn-home"; // a leaf: nothing of the agent loads before the bundle

/** What bin/cairn.js runs: the same two functions every entry of the command exports. */
export interface CommandEntry {
  installCrashHandlers(argv: readonly string[]): void;
  main(argv: string[]): Promise<number>;
}

/**
 * The cached script's entry (run-main.ts) also says whether a task ran (`cairn run --help` compiles
 * too little to be worth keeping), and puts back the V8 flags a task changed before the cache is made.
 */
type ScriptEntry = CommandEntry & { ranTask(): boolean; beforeCodeCache(): void };

/** Caches kept in the folder: one per build, Node version and V8 flags in use, the newest few. */
const kept = 4;

/**
 * Runs a script the build made for vm.Script (`cairn run`'s bundle, dist/bundle/run-cached.js: one
 * function taking CommonJS's five arguments and an import function) from a V8 code cache, issue 26.
 *
 * Node 20 keeps no compiled code between runs of ES modules, so every `cairn run` parsed and
 * compiled ~2 MB of JavaScript again: ~90 ms of a one-turn task's CPU. A code cache holds V8's
 * bytecode for every function the run compiled; the next run reads it instead of compiling.
 *
 * The cache is written after a task that ended well (by then the functions a task needs are
 * compiled; `--help` or a usage error writes none), only when there was none or V8 turned it down. It is code this process will run, so:
 * - It lives in CAIRN_HOME/cache/code (CAIRN_HOME is never seen by sandboxed commands), a folder of
 *   mode 0700, each file 0600, written whole then renamed; a file owned by another user or writable
 *   by others is ignored, and a link is not followed.
 * - Its name holds a hash of the script's bytes, Node's version, the architecture and the flags
 *   Node was started with: V8 itself compares only the source's length and its own version and flags.
 * - Each file starts with the SHA-256 of the rest: a damaged cache is never handed to V8 (release
 *   builds of V8 do not check a cache's own checksum, and a damaged one can crash the process).
 * Any failure to read or write it costs the run its compile, nothing else.
 */
export function runFromCodeCache(script: string, cacheDir: string = path.join(cairnHome(), "cache", "code")): CommandEntry {
  const bytes = readFileSync(script);
  // The build keeps the bundle ASCII: read as Latin-1 it becomes a one-byte string without decoding.
  const source = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
  const cacheFile = path.join(cacheDir, `run-${cacheKey(bytes)}.v8`);
  const cachedData = readCache(cacheFile);
  // V8 stamps a cache with a hash of its flags: one written while a flag differs from the start's
  // would be refused by every later run. The entry puts back what the task changed (the shell
  // parser's wasm tiering, bash-wasm.ts); if the hash still differs, none is written.
  const { cachedDataVersionTag } = process.getBuiltinModule("node:v8");
  const tagAtStart = cachedDataVersionTag();
  const compiled = new vm.Script(source, { filename: script, cachedData });
  const stale = cachedData === undefined || compiled.cachedDataRejected === true;
  const module = { exports: {} as ScriptEntry };
  const run = compiled.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string, load: Loader) => void;
  const requireHere = createRequire(script);
  run.call(module.exports, module.exports, requireHere, module, script, path.dirname(script), loaderFor(requireHere));
  const entry = module.exports;
  return {
    installCrashHandlers: (argv) => entry.installCrashHandlers(argv),
    main: async (argv) => {
      const code = await entry.main(argv);
      if (code !== 0 || !stale || !entry.ranTask()) return code;
      entry.beforeCodeCache();
      if (cachedDataVersionTag() === tagAtStart) writeCache(cacheFile, compiled.createCachedData());
      return code;
    },
  };
}

/**
 * A script run by vm has no module loader of its own: the build routes the bundle's import() of
 * packages and its import.meta.resolve here. Both find packages from the script's folder, as the
 * bundle would. `resolve` finds a package's file as require() does, without starting Node's module
 * loader (bin/cairn.js runs this file as CommonJS for the same reason); its one user, the
 * tokenizer's worker, imports either form.
 */
type Loader = ((specifier: string) => Promise<unknown>) & { resolve: (specifier: string) => string };
function loaderFor(requireHere: NodeJS.Require): Loader {
  return Object.assign((specifier: string) => import(specifier), {
    resolve: (specifier: string) => (isBuiltin(specifier) ? specifier : pathToFileURL(requireHere.resolve(specifier)).href),
  });
}

function cacheKey(bytes: Buffer): string {
  const hash = createHash("sha256").update(bytes);
  for (const part of [process.version, process.arch, process.execArgv.join(" "), process.env.NODE_OPTIONS ?? ""]) hash.update(`\0${part}`);
  return hash.digest("hex").slice(0, 32);
}

const checksumBytes = 32;

function readCache(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined; // none yet (or a link, which is not followed)
  }
  try {
    const stat = fstatSync(fd);
    const ours = process.getuid === undefined || stat.uid === process.getuid();
    if (!stat.isFile() || !ours || (stat.mode & 0o022) !== 0 || stat.size <= checksumBytes) return undefined;
    const data = Buffer.allocUnsafe(stat.size);
    if (readSync(fd, data, 0, stat.size, 0) !== stat.size) return undefined;
    const payload = data.subarray(checksumBytes);
    return createHash("sha256").update(payload).digest().equals(data.subarray(0, checksumBytes)) ? payload : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function writeCache(file: string, data: Buffer): void {
  const dir = path.dirname(file);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(temp, Buffer.concat([createHash("sha256").update(data).digest(), data]), { mode: 0o600, flag: "wx" });
    renameSync(temp, file);
    prune(dir);
  } catch {
    rmSync(temp, { force: true }); // the next run compiles as this one did, and tries again
  }
}

/** Caches of earlier builds (or other Node versions) go once more than a few are kept; so do writes a killed run left. */
function prune(dir: string): void {
  const files = readdirSync(dir).map((name) => ({ name, file: path.join(dir, name), at: statSync(path.join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }));
  const caches = files.filter((f) => f.name.endsWith(".v8")).sort((a, b) => b.at - a.at);
  const abandoned = files.filter((f) => f.name.endsWith(".tmp") && Date.now() - f.at > 60 * 60 * 1000);
  for (const old of [...caches.slice(kept), ...abandoned]) rmSync(old.file, { force: true });
}
