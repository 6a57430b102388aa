import type { LanguageSpec } from "../language-spec.js";
import { ecmascriptOpaque, ecmascriptPatterns } from "./javascript.js";

const query = `${ecmascriptPatterns}
(abstract_class_declaration name: (_) @name body: (class_body) @body) @definition.class
(interface_declaration name: (_) @name body: (_) @body) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name body: (_) @body) @definition.enum
(internal_module name: (_) @name body: (_) @body) @definition.module
(module name: (_) @name body: (_) @body) @definition.module
(module name: (_) @name) @definition.module

; overloads and \`declare function\`
(function_signature name: (_) @name) @definition.function

(class_body (abstract_method_signature name: (_) @name) @definition.method)
(class_body (method_signature name: (_) @name) @definition.method)
(interface_body (method_signature name: (_) @name) @definition.method)
(class_body
  (public_field_definition
    name: (_) @name
    value: [(arrow_function) (function_expression)] @function) @definition.method)
`;

const shared = {
  query,
  opaque: ecmascriptOpaque,
  wrappers: ["export_statement", "ambient_declaration"],
} as const;

export const typescript: LanguageSpec = {
  id: "typescript",
  displayName: "TypeScript",
  grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-typescript.wasm",
  ...shared,
};

export const tsx: LanguageSpec = {
  id: "tsx",
  displayName: "TSX",
  grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-tsx.wasm",
  ...shared,
};
