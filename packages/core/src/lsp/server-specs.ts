import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { LspSettings, ServerSettings } from "./lsp-settings.js";

/**
 * How diagnostics come back after a change. `tsserver`: asked for (typescript-language-server
 * forwards tsserver's own syntactic and semantic checks, which answer for the text just sent);
 * `push`: the server publishes them when it likes, and Cairn waits for the publication of the
 * changed version (or, from a server that sends no version, for the first one and a short quiet).
 */
export type DiagnosticsMode = "tsserver" | "push";

/** One language server as Cairn starts it. */
export type ServerSpec = {
  /** Its name in settings and notices: typescript, pyright, gopls, ... */
  name: string;
  extensions: readonly string[];
  rootMarkers: readonly string[];
  /** The program and its arguments for a project root (TypeScript picks the project's own compiler). */
  command(root: string): string[];
  initializationOptions?(root: string): Record<string, unknown>;
  languageId(extension: string): string;
  diagnostics: DiagnosticsMode;
};

const require = createRequire(import.meta.url);

/** A file of one of Cairn's own packages, or undefined when it is not installed. */
function packageFile(name: string, file: string): string | undefined {
  try {
    return path.join(path.dirname(require.resolve(`${name}/package.json`)), file);
  } catch {
    return undefined;
  }
}

/**
 * The workspace's own TypeScript when it has one (its version decides its errors), else Cairn's.
 * Only Cairn's outside the sandbox: the workspace's tsserver.js is the workspace's code.
 */
function tsserverFor(root: string, workspace: string, sandboxed: boolean): string | undefined {
  for (let at = root; sandboxed; at = path.dirname(at)) {
    const own = path.join(at, "node_modules", "typescript", "lib", "tsserver.js");
    if (existsSync(own)) return own;
    if (at === workspace || path.dirname(at) === at || !at.startsWith(workspace)) break;
  }
  return packageFile("typescript", "lib/tsserver.js");
}

const TS_LANGUAGE: Record<string, string> = { ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact" };

/** A program on PATH, or undefined. */
export function onPath(program: string, pathVariable: string | undefined): string | undefined {
  if (program.includes("/")) return existsSync(program) ? program : undefined;
  for (const dir of (pathVariable ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, program);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/**
 * The servers built in: TypeScript/JavaScript and Python from Cairn's own dependencies (they
 * always work), gopls, rust-analyzer and clangd when this machine has them on PATH. Those run the
 * project's code (rust-analyzer its build scripts and macros, gopls a toolchain go.mod names, a
 * workspace's own TypeScript), so without the command sandbox they are left out and TypeScript
 * is Cairn's: a workspace read or edited runs nothing of its own unconfined and unasked.
 */
function builtInSpecs(workspace: string, env: Record<string, string | undefined>, sandboxed: boolean): ServerSpec[] {
  const specs: ServerSpec[] = [];
  const tsls = packageFile("typescript-language-server", "lib/cli.mjs");
  if (tsls !== undefined) {
    specs.push({
      name: "typescript",
      extensions: Object.keys(TS_LANGUAGE),
      rootMarkers: ["tsconfig.json", "jsconfig.json", "package.json"],
      command: () => [process.execPath, tsls, "--stdio"],
      initializationOptions: (root) => {
        const tsserver = tsserverFor(root, workspace, sandboxed);
        // No automatic type acquisition: it runs npm to fetch @types packages, network and installs nobody asked for.
        return { ...(tsserver ? { tsserver: { path: tsserver } } : {}), disableAutomaticTypingAcquisition: true, preferences: {} };
      },
      languageId: (ext) => TS_LANGUAGE[ext] ?? "typescript",
      diagnostics: "tsserver",
    });
  }
  const pyright = packageFile("pyright", "langserver.index.js");
  if (pyright !== undefined) {
    specs.push({
      name: "pyright",
      extensions: [".py", ".pyi"],
      rootMarkers: ["pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"],
      command: () => [process.execPath, pyright, "--stdio"],
      languageId: () => "python",
      diagnostics: "push",
    });
  }
  const fromPath: Array<{ name: string; program: string; args: string[]; extensions: string[]; rootMarkers: string[]; languageId: (ext: string) => string }> = [
    { name: "gopls", program: "gopls", args: [], extensions: [".go"], rootMarkers: ["go.mod", "go.work"], languageId: () => "go" },
    { name: "rust-analyzer", program: "rust-analyzer", args: [], extensions: [".rs"], rootMarkers: ["Cargo.toml"], languageId: () => "rust" },
    {
      name: "clangd",
      program: "clangd",
      args: [],
      extensions: [".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"],
      rootMarkers: ["compile_commands.json", "compile_flags.txt", ".clangd"],
      languageId: (ext) => (ext === ".c" || ext === ".h" ? "c" : "cpp"),
    },
  ];
  for (const s of sandboxed ? fromPath : []) {
    const program = onPath(s.program, env.PATH);
    if (program === undefined) continue;
    specs.push({ name: s.name, extensions: s.extensions, rootMarkers: s.rootMarkers, command: () => [program, ...s.args], languageId: s.languageId, diagnostics: "push" });
  }
  return specs;
}

/** The built-in servers with the person's `lsp` settings applied: changed, added, or turned off. */
export function serverSpecs(settings: LspSettings | undefined, workspace: string, env: Record<string, string | undefined>, sandboxed: boolean): ServerSpec[] {
  if (settings === false) return [];
  const specs = new Map(builtInSpecs(workspace, env, sandboxed).map((s) => [s.name, s]));
  for (const [name, configured] of Object.entries(settings?.servers ?? {})) {
    if (configured === false) {
      specs.delete(name);
      continue;
    }
    const merged = withSettings(name, specs.get(name), configured);
    if (merged) specs.set(name, merged);
  }
  return [...specs.values()];
}

function withSettings(name: string, base: ServerSpec | undefined, s: ServerSettings): ServerSpec | undefined {
  const command = s.command;
  const extensions = s.extensions ?? base?.extensions;
  if ((command === undefined && base === undefined) || extensions === undefined) return undefined;
  return {
    name,
    extensions,
    rootMarkers: s.rootMarkers ?? base?.rootMarkers ?? [],
    command: command ? () => [...command] : base!.command,
    ...(s.initializationOptions ? { initializationOptions: () => ({ ...s.initializationOptions }) } : base?.initializationOptions ? { initializationOptions: base.initializationOptions } : {}),
    languageId: s.languageId ? () => s.languageId! : (base?.languageId ?? ((ext) => ext.slice(1))),
    // A command of the person's own is another program: only the built-in TypeScript server is asked tsserver's way.
    diagnostics: command === undefined && base ? base.diagnostics : "push",
  };
}

/** The server for a file, by its extension; undefined when none checks it. */
export function specFor(specs: readonly ServerSpec[], file: string): ServerSpec | undefined {
  const ext = path.extname(file).toLowerCase();
  if (ext === "") return undefined;
  return specs.find((s) => s.extensions.includes(ext));
}

/** The nearest folder from the file up to the workspace holding one of the markers; the workspace without one. */
export function rootFor(spec: ServerSpec, file: string, workspace: string): string {
  for (let at = path.dirname(file); at.startsWith(workspace); at = path.dirname(at)) {
    if (spec.rootMarkers.some((m) => existsSync(path.join(at, m)))) return at;
    if (at === workspace || path.dirname(at) === at) break;
  }
  return workspace;
}
