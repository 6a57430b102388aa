import { createRequire } from "node:module";
import type { Parser, Query } from "web-tree-sitter";
import { loadGrammar } from "../../tree-sitter/index.js";
import type { LanguageSpec } from "./language-spec.js";

/** A language ready to use: one parser and the compiled definitions query, kept for the life of the process. */
export type LoadedLanguage = { spec: LanguageSpec; parser: Parser; query: Query };

// Resolved from this module, so the same code finds the grammars from src, from dist, and from an
// installed @cairn/core.
const require = createRequire(import.meta.url);

const loaded = new Map<string, Promise<LoadedLanguage>>();

/** Loads the tree-sitter runtime (with the first outline, not with the agent) and one grammar on first use; later calls get the cached result. */
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
  const { language, parser, runtime } = await loadGrammar(require.resolve(spec.grammar));
  return { spec, parser, query: new runtime.Query(language, spec.query) };
}
