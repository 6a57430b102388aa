import type { LanguageSpec } from "../language-spec.js";

export const php: LanguageSpec = {
  id: "php",
  displayName: "PHP",
  grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-php.wasm",
  query: `
(namespace_definition name: (_) @name body: (_) @body) @definition.module
(namespace_definition name: (_) @name) @definition.module
(class_declaration name: (_) @name body: (_) @body) @definition.class
(interface_declaration name: (_) @name body: (_) @body) @definition.interface
(trait_declaration name: (_) @name body: (_) @body) @definition.trait
(enum_declaration name: (_) @name body: (_) @body) @definition.enum
(function_definition name: (_) @name body: (_) @body) @definition.function
(method_declaration name: (_) @name body: (_) @body) @definition.method
(method_declaration name: (_) @name) @definition.method
`,
  opaque: ["anonymous_function", "arrow_function", "anonymous_class"],
  wrappers: [],
};
