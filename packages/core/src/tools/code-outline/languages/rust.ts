import type { LanguageSpec } from "../language-spec.js";

export const rust: LanguageSpec = {
  id: "rust",
  displayName: "Rust",
  grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-rust.wasm",
  query: `
(mod_item name: (_) @name body: (_) @body) @definition.module
(mod_item name: (_) @name) @definition.module
(struct_item name: (_) @name body: (field_declaration_list) @body) @definition.struct
(struct_item name: (_) @name) @definition.struct
(union_item name: (_) @name body: (_) @body) @definition.union
(enum_item name: (_) @name body: (_) @body) @definition.enum
(trait_item name: (_) @name body: (_) @body) @definition.trait
(impl_item type: (_) @name body: (_) @body) @definition.impl
(impl_item type: (_) @name) @definition.impl
(function_item name: (_) @name body: (_) @body) @definition.function
(function_signature_item name: (_) @name) @definition.function
(type_item name: (_) @name) @definition.type
(macro_definition name: (_) @name) @definition.macro
`,
  opaque: ["closure_expression", "async_block"],
  wrappers: [],
};
