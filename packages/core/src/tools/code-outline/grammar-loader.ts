import { createRequire } from "node:module";
import type { Parser, Query } from "web-tree-sitter";
import type { LanguageSpec } from "./language-spec.js";

/** A language ready to use: one parser and the compiled definitions query, kept for the life of the process. */
export type LoadedLanguage = { spec: LanguageSpec; parser: Parser; query: Query };

// Resolved from this module, so the same code finds the wasm files from src, from dist, and
// from an installed @cairn/core.
const require = createRequire(import.meta.url);

let runtime: Promise<void> | undefined;
const loaded = new Map<string, Promise<LoadedLanguage>>();

// The runtime module loads with the first outline, not with the agent.
const treeSitter = () => import("web-tree-sitter");

function initRuntime(): Promise<void> {
  runtime ??= treeSitter().then(({ Parser }) => Parser.init({
    locateFile: () => require.resolve("web-tree-sitter/web-tree-sitter.wasm"),
  })).catch((error: unknown) => {
    runtime = undefined; // let a later call try again
    throw error;
  });
  return runtime;
}

/** Loads the tree-sitter runtime and one grammar on first use; later calls get the cached result. */
export function loadLanguage(spec: LanguageSpec): Promise<LoadedLanguage> {
  let pending = loaded.get(spec.id);
  if (pending === undefined) {
    pending = load(spec).catch((error: unknown) => {
      loaded.delete(spec.id);
      throw error;
    });
    loaded.set(spec.id, pending);
  }
  return pending;
}

async function load(spec: LanguageSpec): Promise<LoadedLanguage> {
  await initRuntime();
  const { Language, Parser, Query } = await treeSitter();
  const language = await Language.load(require.resolve(spec.grammar));
  const parser = new Parser();
  parser.setLanguage(language);
  return { spec, parser, query: new Query(language, spec.query) };
}
