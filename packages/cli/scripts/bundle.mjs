/**
 * Bundles the compiled command (dist/main.js and what it imports, @cairn/core and @cairn/host included) into
 * dist/bundle: a one-turn task then loads ~15 files instead of ~370 modules (107 of them zod's,
 * most of those its locales), and Node's module resolution and loading drop from ~0.2 s of CPU to a
 * few ms (issue 13). Each command and lazily loaded feature stays its own chunk, loaded on first use.
 *
 * Run after `tsc -b` (npm run build does both). bin/cairn.js runs the bundle only while it is newer
 * than the last compile, so a `tsc -b` alone during development never runs stale code.
 *
 * `cairn run` also gets a bundle of its own, run-cached.js: one script, which bin/cairn.js runs from
 * a V8 code cache (scripts/run-script.mjs, src/code-cache.ts).
 *
 * Inlined: the small pure-JS packages every task loads (zod, the AI SDK providers). The rest stays
 * external, loaded from node_modules as before: packages with native binaries, wasm or data files
 * found by path (ripgrep, tree-sitter, the tokenizer), and large ones used by one feature (Ink and
 * React, the MCP SDK, puppeteer, document readers, the fleet and editor hosts).
 */
import { build } from "esbuild";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { plainSdkHeaders } from "./plain-sdk-headers.mjs";
import { buildRunScript } from "./run-script.mjs";

const cliRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const coreRoot = path.resolve(cliRoot, "../core");
const hostRoot = path.resolve(cliRoot, "../host");
const outdir = path.join(cliRoot, "dist/bundle");

const inlined = new Set([
  "@cairn/core",
  "@cairn/host",
  "zod",
  "@ai-sdk/anthropic",
  "@ai-sdk/openai",
  "@ai-sdk/openai-compatible",
  "@ai-sdk/provider",
  "@ai-sdk/provider-utils",
  "@standard-schema/spec",
  "eventsource-parser",
  "ignore",
]);

const packageName = (specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
/** A package loaded from node_modules when the bundle runs (not a file, not Node's own, not inlined). */
const external = (specifier) => !specifier.startsWith(".") && !path.isAbsolute(specifier) && !isBuiltin(specifier) && !inlined.has(packageName(specifier));

/** The folder a bare import of `name` finds from `dir`, walking up node_modules as Node does. */
function packageFolder(dir, name) {
  for (let at = dir; ; at = path.dirname(at)) {
    const candidate = path.join(at, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(at) === at) return undefined;
  }
}

// An external package (or a file in one that core finds with createRequire, such as a wasm
// grammar) is now looked up from dist/bundle, not from core's own folder: both must find the same.
for (const root of [coreRoot, hostRoot, cliRoot]) {
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (inlined.has(name)) continue;
    const where = packageFolder(path.join(root, "dist"), name);
    const fromBundle = packageFolder(outdir, name);
    if (fromBundle !== where) {
      console.error(`bundle: ${name} is ${fromBundle ?? "not found"} from dist/bundle but ${where ?? "not found"} from ${manifest.name}; hoist it (npm dedupe) or inline it (packages/cli/scripts/bundle.mjs)`);
      process.exit(1);
    }
  }
}

/**
 * Compiled modules that find files next to themselves keep finding the same files from the bundle:
 * `createRequire(import.meta.url)("../package.json")` becomes the package's name and version,
 * written in at build time; `new URL("./file.js", import.meta.url)` (a script a child process
 * runs, bin/cairn.js) is re-aimed from dist/bundle at the same file. Any other use of
 * import.meta.url with a path would now point elsewhere, so it stops the build.
 */
const bundledPaths = {
  name: "bundled-paths",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("node:") || external(args.path)) return { path: args.path, external: true };
      return undefined;
    });
    b.onLoad({ filter: /[\\/]packages[\\/](core|host|cli)[\\/]dist[\\/].*\.js$/ }, (args) => {
      const here = path.dirname(args.path);
      const text = readFileSync(args.path, "utf8")
        .replace(/createRequire\(import\.meta\.url\)\((["'])(\.{1,2}\/[^"']*package\.json)\1\)/g, (_match, _quote, relative) => {
          const { name, version } = JSON.parse(readFileSync(path.resolve(here, relative), "utf8"));
          return `(${JSON.stringify({ name, version })})`;
        })
        .replace(/new URL\((["'])(\.{1,2}\/[^"']*)\1, import\.meta\.url\)/g, (_match, _quote, relative) => {
          let target = path.relative(outdir, path.resolve(here, relative)).split(path.sep).join("/");
          if (!target.startsWith(".")) target = `./${target}`;
          if (relative.endsWith("/") && !target.endsWith("/")) target += "/";
          return `new URL(${JSON.stringify(target)}, import.meta.url)`;
        });
      // What is left may only resolve packages (createRequire(import.meta.url) then a bare name, import.meta.resolve).
      const unhandled = text
        .split("\n")
        .filter((line) => line.includes("import.meta.url") && !/createRequire\(import\.meta\.url\)/.test(line) && !/new URL\("[^"]*", import\.meta\.url\)/.test(line));
      if (unhandled.length > 0) {
        return { errors: [{ text: `uses import.meta.url in a way the bundle cannot keep pointing at the same file: ${unhandled[0].trim()} (use new URL("./relative", import.meta.url), or add the case to packages/cli/scripts/bundle.mjs)` }] };
      }
      return { contents: text, loader: "js" };
    });
  },
};

/**
 * zod re-exports all of its ~60 message locales as `z.locales` (0.5 MB, a fifth of what a task
 * loads); it uses English unless told otherwise, and nothing in Cairn or its inlined packages
 * picks another. The bundle keeps English only. (The MCP SDK and other external packages load
 * their own zod, whole, from node_modules.)
 */
const englishOnlyZodLocales = {
  name: "english-only-zod-locales",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";\n', loader: "js" }));
  },
};

const plugins = [bundledPaths, englishOnlyZodLocales, plainSdkHeaders];
const result = await build({
  entryPoints: { main: path.join(cliRoot, "dist/main.js") },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  write: false,
  metafile: true,
  logLevel: "warning",
  plugins,
});
/**
 * Packages `cairn run`'s script holds although the ES bundle loads them from node_modules, as their
 * CommonJS build: tree-sitter's runtime, so the first command of a task neither starts Node's ES
 * module loader nor compiles the runtime afresh (~10 ms beside a command's first reply).
 */
const inlinedInRunScript = new Set(["web-tree-sitter"]);
const requireBuilds = {
  name: "require-builds",
  setup(b) {
    const requireHere = createRequire(path.join(outdir, "run-cached.js"));
    b.onResolve({ filter: /^[^./]/ }, (args) => (inlinedInRunScript.has(args.path) ? { path: requireHere.resolve(args.path) } : undefined));
  },
};

// `cairn run` also as one script for vm.Script, which bin/cairn.js runs from a V8 code cache.
const runScript = await buildRunScript({
  entry: path.join(cliRoot, "dist/run-main.js"),
  outdir,
  plugins: [requireBuilds, ...plugins],
  external: (specifier) => external(specifier) && !inlinedInRunScript.has(specifier),
});
// The loader of that cache, as CommonJS: bin/cairn.js is CommonJS, so `cairn run` starts no ES module loader.
const runLoader = await build({
  entryPoints: [path.join(cliRoot, "dist/code-cache.js")],
  outfile: path.join(outdir, "run-loader.cjs"),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  write: false,
  logLevel: "warning",
});
if (runLoader.warnings.length > 0) {
  console.error(`bundle (run-loader.cjs): esbuild warned: ${runLoader.warnings[0].text}`);
  process.exit(1);
}

// Each file is written whole (temp file, then rename) and the entry last, so a cairn starting
// during a build runs either the old bundle or the new one, never half a file. Chunks from earlier
// builds stay a while for processes still running that load one lazily.
mkdirSync(outdir, { recursive: true });
const written = new Set();
const files = [...result.outputFiles, ...runLoader.outputFiles, runScript.file].sort((a, b) => Number(path.basename(a.path) === "main.js") - Number(path.basename(b.path) === "main.js"));
for (const file of files) {
  const temp = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temp, file.contents);
  renameSync(temp, file.path);
  written.add(path.basename(file.path));
}
// Files of earlier builds go once an hour old (a process started before may still load one lazily).
const hour = 60 * 60 * 1000;
for (const name of readdirSync(outdir)) {
  const file = path.join(outdir, name);
  if (!written.has(name) && name !== "bundle-inputs.json" && Date.now() - statSync(file).mtimeMs > hour) rmSync(file, { force: true });
}

// Which compiled modules each file holds (paths relative to this folder): test/support's module
// recorder reads it to report what a run loaded in the modules' own names.
// Entries of earlier builds stay while their files do (another build may have written main.js).
const manifest = path.join(outdir, "bundle-inputs.json");
let inputs = {};
try {
  inputs = JSON.parse(readFileSync(manifest, "utf8"));
} catch {
  // first build, or a damaged manifest: start afresh
}
for (const name of Object.keys(inputs)) if (!existsSync(path.join(outdir, name))) delete inputs[name];
for (const [output, meta] of Object.entries(result.metafile.outputs)) {
  inputs[path.basename(output)] = Object.keys(meta.inputs).map((input) => path.relative(outdir, path.resolve(input)));
}
inputs[path.basename(runScript.file.path)] = runScript.alwaysLoaded;
writeFileSync(`${manifest}.${process.pid}.tmp`, `${JSON.stringify(inputs, null, 1)}\n`);
renameSync(`${manifest}.${process.pid}.tmp`, manifest);
written.add("bundle-inputs.json");

