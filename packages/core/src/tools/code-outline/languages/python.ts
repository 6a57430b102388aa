import type { LanguageSpec } from "../language-spec.js";

export const python: LanguageSpec = {
  id: "python",
  displayName: "Python",
  grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm",
  query: `
(class_definition name: (identifier) @name body: (block) @body) @definition.class
(function_definition name: (identifier) @name body: (block) @body) @definition.function
`,
  opaque: [],
  wrappers: [],
  trailing: /[\s:]+$/,
};
