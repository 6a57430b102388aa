import type { LanguageSpec } from "../language-spec.js";

/** Struct, union, enum and typedef patterns, valid in the C and C++ grammars alike. */
export const cTypePatterns = `
(struct_specifier name: (_) @name body: (_) @body) @definition.struct
(union_specifier name: (_) @name body: (_) @body) @definition.union
(enum_specifier name: (_) @name body: (_) @body) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition) @definition.type
(preproc_function_def name: (identifier) @name value: (_)? @body) @definition.macro
`;

/** Function definitions, through up to two pointer declarators (`char **name(void)`). */
export const cFunctionPatterns = `
(function_definition
  declarator: (function_declarator declarator: (_) @name)
  body: (_) @body) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name))
  body: (_) @body) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))
  body: (_) @body) @definition.function
(function_definition body: (_) @body) @definition.function
`;

/**
 * C, with the grammar from the tree-sitter-c package (@vscode/tree-sitter-wasm has no C). `.h`
 * files are C++ unless only C parses them cleanly (see languages.ts).
 */
export const c: LanguageSpec = {
  id: "c",
  displayName: "C",
  grammar: "tree-sitter-c/tree-sitter-c.wasm",
  query: `${cTypePatterns}${cFunctionPatterns}
; prototypes: int f(void); char *g(int);
(declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(declaration
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
`,
  opaque: [],
  wrappers: [],
};
