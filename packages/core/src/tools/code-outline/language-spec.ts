/** What a definition is. Containers hold other definitions (methods under a class); the rest are leaves. */
export type DefinitionKind =
  | "module"
  | "class"
  | "interface"
  | "struct"
  | "union"
  | "enum"
  | "trait"
  | "impl"
  | "function"
  | "method"
  | "type"
  | "macro"
  | "variable";

export const containerKinds: ReadonlySet<DefinitionKind> = new Set([
  "module",
  "class",
  "interface",
  "struct",
  "union",
  "enum",
  "trait",
  "impl",
]);

/** Containers whose functions are methods (a function in a namespace stays a function). */
export const typeKinds: ReadonlySet<DefinitionKind> = new Set(["class", "interface", "struct", "union", "enum", "trait", "impl"]);

export const definitionKinds: ReadonlySet<string> = new Set<DefinitionKind>([...containerKinds, "function", "method", "type", "macro", "variable"]);

/**
 * Everything the outliner knows about one language.
 *
 * The query marks each definition node `@definition.<kind>`, its name `@name`, and optionally
 * `@body`: the signature line is cut where the body starts, so a one-line `function f() { ... }`
 * shows as `function f()`. `@function` marks a function value (`const f = () => ...`) whose body
 * field is the body: capturing the body inside alternations instead makes the query several times
 * slower to compile. When two patterns capture the same node, the earlier pattern wins.
 */
export type LanguageSpec = {
  id: string;
  /** Shown to people: "TypeScript". */
  displayName: string;
  /** Module specifier of the grammar's .wasm file, resolved from this package. */
  grammar: string;
  query: string;
  /**
   * Nodes whose contents are never outlined: anonymous functions, closures, blocks. Definitions
   * inside named functions are left out anyway (a leaf definition never holds others).
   */
  opaque: readonly string[];
  /** Nodes around a definition whose first token starts its signature when on the same line: `export`, `declare`. */
  wrappers: readonly string[];
  /** Trailing text to drop from a signature line. Defaults to an opening brace or semicolon. */
  trailing?: RegExp;
};
