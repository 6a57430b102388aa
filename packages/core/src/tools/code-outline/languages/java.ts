import type { LanguageSpec } from "../language-spec.js";

export const java: LanguageSpec = {
  id: "java",
  displayName: "Java",
  grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-java.wasm",
  query: `
(class_declaration name: (_) @name body: (_) @body) @definition.class
(record_declaration name: (_) @name body: (_) @body) @definition.class
(interface_declaration name: (_) @name body: (_) @body) @definition.interface
(annotation_type_declaration name: (_) @name body: (_) @body) @definition.interface
(enum_declaration name: (_) @name body: (_) @body) @definition.enum

(method_declaration name: (_) @name body: (_) @body) @definition.method
(method_declaration name: (_) @name) @definition.method
(constructor_declaration name: (_) @name body: (_) @body) @definition.method
(compact_constructor_declaration name: (_) @name body: (_) @body) @definition.method
`,
  // Anonymous classes and enum constants with bodies: their methods belong to one object, not the type.
  opaque: ["lambda_expression", "object_creation_expression", "enum_constant"],
  wrappers: [],
};
