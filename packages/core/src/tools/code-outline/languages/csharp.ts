import type { LanguageSpec } from "../language-spec.js";

export const csharp: LanguageSpec = {
  id: "csharp",
  displayName: "C#",
  grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-c-sharp.wasm",
  query: `
(namespace_declaration name: (_) @name body: (_) @body) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module
(class_declaration name: (_) @name body: (_) @body) @definition.class
(record_declaration name: (_) @name body: (_) @body) @definition.class
(record_declaration name: (_) @name) @definition.class
(struct_declaration name: (_) @name body: (_) @body) @definition.struct
(interface_declaration name: (_) @name body: (_) @body) @definition.interface
(enum_declaration name: (_) @name body: (_) @body) @definition.enum
(delegate_declaration name: (_) @name) @definition.type

(method_declaration name: (_) @name body: (_) @body) @definition.method
(method_declaration name: (_) @name) @definition.method
(constructor_declaration name: (_) @name body: (_) @body) @definition.method
(destructor_declaration name: (_) @name body: (_) @body) @definition.method
`,
  opaque: ["lambda_expression", "anonymous_method_expression", "anonymous_object_creation_expression"],
  wrappers: [],
};
