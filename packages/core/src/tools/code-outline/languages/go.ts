import type { LanguageSpec } from "../language-spec.js";

export const go: LanguageSpec = {
  id: "go",
  displayName: "Go",
  grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-go.wasm",
  query: `
(function_declaration name: (identifier) @name body: (block)? @body) @definition.function
(method_declaration name: (field_identifier) @name body: (block)? @body) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

(interface_type (method_elem name: (field_identifier) @name) @definition.method)
`,
  opaque: ["func_literal"],
  wrappers: ["type_declaration"],
};
