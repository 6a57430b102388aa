import type { Node } from "web-tree-sitter";
import { loadLanguage, type LoadedLanguage } from "./grammar-loader.js";
import { containerKinds, definitionKinds, typeKinds, type DefinitionKind, type LanguageSpec } from "./language-spec.js";
import { languagesForFile } from "./languages.js";
import { signatureOf } from "./signature.js";

export type OutlineEntry = {
  kind: DefinitionKind;
  /** The defined name as written, when the definition has one (`export default function () {}` has none). */
  name?: string;
  /** 1-based line of the signature. */
  line: number;
  /** The signature's first line, trimmed. */
  signature: string;
  /** 0 for top-level definitions, 1 for a method in a class, 2 for a method in a nested class... */
  depth: number;
};

export type SourceOutline = {
  language: LanguageSpec;
  /** In source order; a container comes before its members. */
  entries: OutlineEntry[];
  /** The parser had to recover from syntax errors, so definitions may be missing. */
  hasErrors: boolean;
};

export type OutlineOptions = {
  signal?: AbortSignal;
  /** Give up on a file whose parse takes longer than this. */
  timeoutMs?: number;
};

export const defaultParseTimeoutMs = 5_000;

/**
 * Outlines a file's text by its name's extension; undefined when it is not a source file the
 * outliner reads. A file with two candidate languages (`.h`) gets the first that parses cleanly.
 */
export async function outlineFile(fileName: string, source: string, options: OutlineOptions = {}): Promise<SourceOutline | undefined> {
  const candidates = languagesForFile(fileName);
  let first: SourceOutline | undefined;
  for (const spec of candidates) {
    const outline = await outlineSource(source, spec, options);
    if (!outline.hasErrors) return outline;
    first ??= outline;
  }
  return first;
}

/** Parses `source` as `spec`'s language and lists its definitions. Throws when the grammar can't be loaded or the parse times out. */
export async function outlineSource(source: string, spec: LanguageSpec, options: OutlineOptions = {}): Promise<SourceOutline> {
  options.signal?.throwIfAborted();
  const loaded = await loadLanguage(spec);
  const deadline = performance.now() + (options.timeoutMs ?? defaultParseTimeoutMs);
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const tree = loaded.parser.parse(text, null, {
    progressCallback: () => options.signal?.aborted === true || performance.now() > deadline,
  });
  if (tree === null) {
    loaded.parser.reset();
    options.signal?.throwIfAborted();
    throw new Error(`parsing took longer than ${(options.timeoutMs ?? defaultParseTimeoutMs) / 1000} s`);
  }
  try {
    return { language: spec, entries: definitionsIn(tree.rootNode, loaded, text), hasErrors: tree.rootNode.hasError };
  } finally {
    tree.delete();
  }
}

type Candidate = {
  node: Node;
  kind: DefinitionKind;
  name: Node | undefined;
  body: Node | undefined;
  patternIndex: number;
  /** Set once placed: the entry shown, or null when the definition is left out. */
  entry?: OutlineEntry | null;
};

function definitionsIn(root: Node, { spec, query }: LoadedLanguage, source: string): OutlineEntry[] {
  const byNode = new Map<number, Candidate>();
  for (const match of query.matches(root)) {
    const candidate = candidateOf(match.captures, match.patternIndex);
    if (candidate === undefined) continue;
    const existing = byNode.get(candidate.node.id);
    if (existing === undefined || candidate.patternIndex < existing.patternIndex) byNode.set(candidate.node.id, candidate);
  }
  // Outer before inner: by start, then the longer first.
  const ordered = [...byNode.values()].sort(
    (a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex,
  );

  const entries: OutlineEntry[] = [];
  for (const candidate of ordered) {
    const parent = placement(candidate, byNode, spec);
    if (parent === null) {
      candidate.entry = null;
      continue;
    }
    const kind = candidate.kind === "function" && parent !== undefined && typeKinds.has(parent.kind) ? "method" : candidate.kind;
    const { line, text } = signatureOf(spec, source, candidate.node, candidate.name, candidate.body);
    const entry: OutlineEntry = { kind, line, signature: text, depth: parent === undefined ? 0 : parent.depth + 1 };
    if (candidate.name !== undefined) entry.name = candidate.name.text;
    candidate.entry = entry;
    entries.push(entry);
  }
  return entries;
}

function candidateOf(captures: ReadonlyArray<{ name: string; node: Node }>, patternIndex: number): Candidate | undefined {
  let node: Node | undefined;
  let kind: DefinitionKind | undefined;
  let name: Node | undefined;
  let body: Node | undefined;
  for (const capture of captures) {
    if (capture.name === "name") name = capture.node;
    else if (capture.name === "body") body = capture.node;
    else if (capture.name === "function") body ??= capture.node.childForFieldName("body") ?? undefined;
    else if (capture.name.startsWith("definition.")) {
      const captured = capture.name.slice("definition.".length);
      if (!definitionKinds.has(captured)) throw new Error(`unknown definition kind in query: @${capture.name}`);
      node = capture.node;
      kind = captured as DefinitionKind;
    }
  }
  return node === undefined || kind === undefined ? undefined : { node, kind, name, body, patternIndex };
}

/**
 * Where a definition goes: under the nearest enclosing container (undefined: at the top level),
 * or nowhere (null) when it sits inside a function, a callback or another leaf definition —
 * local helpers are not part of a file's outline.
 */
function placement(candidate: Candidate, byNode: ReadonlyMap<number, Candidate>, spec: LanguageSpec): OutlineEntry | undefined | null {
  for (let node = candidate.node.parent; node !== null; node = node.parent) {
    if (spec.opaque.includes(node.type)) return null;
    const enclosing = byNode.get(node.id);
    if (enclosing === undefined || enclosing.entry === undefined) continue;
    if (enclosing.entry === null || !containerKinds.has(enclosing.kind)) return null;
    return enclosing.entry;
  }
  return undefined;
}
