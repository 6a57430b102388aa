import type { LanguageSpec } from "../language-spec.js";

/** Patterns valid in the JavaScript, TypeScript and TSX grammars alike. */
export const ecmascriptPatterns = `
(class_declaration name: (_) @name body: (class_body) @body) @definition.class
(export_statement value: (class body: (class_body) @body) @definition.class)

(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class body: (class_body) @body))) @definition.class
(variable_declaration
  (variable_declarator name: (identifier) @name value: (class body: (class_body) @body))) @definition.class

(class_body (method_definition name: (_) @name body: (_) @body) @definition.method)

(function_declaration name: (identifier) @name body: (_) @body) @definition.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @definition.function
(export_statement
  value: [(function_expression) (arrow_function) (generator_function)] @definition.function @function)

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)] @function)) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)] @function)) @definition.function

; Foo.prototype.bar = function () {}, exports.baz = () => {}
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)] @function)) @definition.function

; Other exported values are the module's API too: \`export const User = z.object({\`,
; \`export const readFileTool = defineTool({\`. Last, so the patterns above win.
(export_statement
  declaration: (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.variable)
`;

/** Callbacks and function values: what is defined inside them is local, not part of the file's outline. */
export const ecmascriptOpaque = ["arrow_function", "function_expression", "generator_function"] as const;

export const javascript: LanguageSpec = {
  id: "javascript",
  displayName: "JavaScript",
  grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-javascript.wasm",
  query: `${ecmascriptPatterns}
(class_body
  (field_definition
    property: (_) @name
    value: [(arrow_function) (function_expression)] @function) @definition.method)
`,
  opaque: ecmascriptOpaque,
  wrappers: ["export_statement"],
};
