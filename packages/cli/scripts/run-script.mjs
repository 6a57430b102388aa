import { build } from "esbuild";
import { createRequire, isBuiltin } from "node:module";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * `cairn run` (dist/run-main.js and everything it loads, lazily loaded features included) as one
 * script for vm.Script, dist/bundle/run-cached.js, so that bin/cairn.js can run it from a V8 code
 * cache (src/code-cache.ts; Node 20 caches no ES module's compiled code). The file is a single
 * function expression taking CommonJS's arguments and an import function:
 *
 *   (function (exports, require, module, __filename, __dirname, __cairnImport) { "use strict"; … })
 *
 * - An import() of one of Node's own modules becomes require().
 * - Packages that stay outside (node_modules) are loaded as the ES module bundle loads them. A
 *   dynamic import() of one goes through __cairnImport, import.meta.resolve through
 *   __cairnImport.resolve: a script run by vm has no module loader of its own. A static import
 *   becomes require(), so a package that cannot be required (an ES module only) stops the build,
 *   named, rather than failing on the run that first reaches it.
 * - Each lazily loaded module reports itself to globalThis.__cairnRecordModule when it first runs,
 *   if that is set (test/support/module-recorder), so a record names what a run really loaded.
 * - The text is ASCII (esbuild escapes strings; minified whitespace drops comments): the loader
 *   reads it as a one-byte string, ~10 ms less than decoding UTF-8 into a two-byte one.
 */
export async function buildRunScript({ entry, outdir, plugins, external }) {
  const name = "run-cached.js";
  const requireHere = createRequire(path.join(outdir, name));
  mkdirSync(outdir, { recursive: true }); // esbuild resolves from it (absWorkingDir): a fresh clone has none yet
  const result = await build({
    entryPoints: [entry],
    outfile: path.join(outdir, name),
    absWorkingDir: outdir,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    write: false,
    metafile: true,
    minifyWhitespace: true,
    logLevel: "silent",
    define: { "import.meta.url": "__cairnImportMetaUrl", "import.meta.resolve": "__cairnImport.resolve" },
    plugins: [hostImports(requireHere, external), ...plugins],
  });
  if (result.warnings.length > 0) fail(`esbuild warned: ${result.warnings[0].text}${result.warnings[0].location ? ` (${result.warnings[0].location.file}:${result.warnings[0].location.line})` : ""}`);
  const [output] = result.outputFiles;
  const { body, helperNames } = instrument(output.text);
  const nonAscii = body.search(/[^\x00-\x7f]/);
  if (nonAscii >= 0) fail(`a character outside ASCII remains (a regular expression?): …${body.slice(Math.max(0, nonAscii - 60), nonAscii + 20)}…; write it as a \\u escape in the source`);
  const text = `(function (exports, require, module, __filename, __dirname, __cairnImport) {"use strict";var __cairnImportMetaUrl = require("node:url").pathToFileURL(__filename).href;globalThis.__cairnRecordModule?.(__dirname, ${JSON.stringify(name)});\n${body}\n})`;
  // What runs as soon as the script does; each module of a lazily loaded feature reports itself.
  const lazy = new Set([...body.matchAll(new RegExp(`(?:${helperNames.join("|")})\\(\\{"([^"]+)"\\(`, "g"))].map((match) => match[1]));
  const [meta] = Object.values(result.metafile.outputs);
  const alwaysLoaded = Object.keys(meta.inputs).filter((input) => !lazy.has(input));
  return { file: { path: path.join(outdir, name), contents: Buffer.from(text, "latin1") }, alwaysLoaded };
}

function fail(message) {
  console.error(`bundle (run-cached.js): ${message}`);
  process.exit(1);
}

/**
 * esbuild's helpers that run a wrapped module once, each made to report the module first. They are
 * the first definitions of their shape in the output (its runtime comes before any module), and are
 * matched by shape, not name: esbuild renames them (__commonJS2) and their parameters when a bundled
 * module has names of its own that would collide (web-tree-sitter's CommonJS build has its own).
 */
const helpers = [
  {
    shape: /var (__esm\d*)=\((\w+),(\w+),(\w+)\)=>function __init\(\)\{/,
    report: (fn) => `if(${fn}&&globalThis.__cairnRecordModule)globalThis.__cairnRecordModule(__dirname,Object.getOwnPropertyNames(${fn})[0]);`,
  },
  {
    shape: /var (__commonJS\d*)=\((\w+),(\w+)\)=>function __require\(\)\{/,
    report: (cb, mod) => `if(!${mod}&&globalThis.__cairnRecordModule)globalThis.__cairnRecordModule(__dirname,Object.getOwnPropertyNames(${cb})[0]);`,
  },
];

/** The text with the helpers reporting, and the helpers' names in it. */
function instrument(text) {
  const names = [];
  for (const { shape, report } of helpers) {
    const match = shape.exec(text);
    if (!match) fail(`esbuild's module helper changed (nothing matches ${shape}); update packages/cli/scripts/run-script.mjs`);
    const [found, name, ...params] = match;
    names.push(name);
    text = `${text.slice(0, match.index + found.length)}${report(...params)}${text.slice(match.index + found.length)}`;
  }
  return { body: text, helperNames: names };
}


/**
 * Dynamic imports of outside packages become a module whose namespace is a thenable: awaiting
 * `import("pkg")` then awaits __cairnImport("pkg"), the loader's own import(). Static imports of
 * outside packages must be requirable.
 */
function hostImports(requireHere, external) {
  return {
    name: "host-imports",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        // import() of one of Node's own modules (with or without node:) becomes require(): no loader is needed for it.
        if (args.kind === "dynamic-import" && args.namespace !== "builtin-import" && isBuiltin(args.path)) return { path: args.path, namespace: "builtin-import" };
        if (args.namespace === "host-import" || !external(args.path)) return undefined;
        if (args.kind === "dynamic-import") return { path: args.path, namespace: "host-import" };
      });
      b.onLoad({ filter: /.*/, namespace: "builtin-import" }, (args) => {
        const name = JSON.stringify(args.path.startsWith("node:") ? args.path : `node:${args.path}`);
        return { contents: `export * from ${name};\nexport { default } from ${name};\n`, loader: "js" };
      });
      b.onLoad({ filter: /.*/, namespace: "host-import" }, (args) => ({
        contents: `export function then(loaded, failed) { return __cairnImport(${JSON.stringify(args.path)}).then(loaded, failed); }\n`,
        loader: "js",
      }));
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === "dynamic-import" || !external(args.path)) return undefined;
        const problem = unrequirable(requireHere, args.path);
        return problem === undefined ? undefined : { errors: [{ text: `${args.path} ${problem}, so ${path.basename(args.importer)} cannot import it statically in cairn run's code-cached script; import() it where it is used` }] };
      });
    },
  };
}

/** Why Node 20's require() cannot load a package (undefined when it can). */
function unrequirable(requireHere, specifier) {
  let file;
  try {
    file = requireHere.resolve(specifier);
  } catch {
    return undefined; // an inlined package, or one the bundle check reports as missing
  }
  if (file.endsWith(".mjs")) return "is an ES module only";
  if (!file.endsWith(".js")) return undefined;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, "utf8")).type === "module" ? "is an ES module only" : undefined;
    if (path.dirname(dir) === dir) return undefined;
  }
}
