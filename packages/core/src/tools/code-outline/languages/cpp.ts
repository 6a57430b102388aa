import type { LanguageSpec } from "../language-spec.js";
import { cFunctionPatterns, cTypePatterns } from "./c.js";

/** What may name a declared function: `f`, `Server::start`, `~Server`, `operator==`, `get<T>`. */
const functionName = "[(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name) (template_function)]";

const declarators = [
  `(function_declarator declarator: ${functionName} @name)`,
  `(pointer_declarator declarator: (function_declarator declarator: ${functionName} @name))`,
  `(reference_declarator (function_declarator declarator: ${functionName} @name))`,
];

export const cpp: LanguageSpec = {
  id: "cpp",
  displayName: "C++",
  grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-cpp.wasm",
  query: `
(namespace_definition name: (_) @name body: (_) @body) @definition.module
(class_specifier name: (_) @name body: (_) @body) @definition.class
(alias_declaration name: (_) @name) @definition.type
${cTypePatterns}
(function_definition
  declarator: (reference_declarator (function_declarator declarator: (_) @name))
  body: (_) @body) @definition.function
${cFunctionPatterns}
; prototypes, and member functions declared in a class body
${declarators.map((d) => `(declaration declarator: ${d}) @definition.function`).join("\n")}
${declarators.map((d) => `(field_declaration declarator: ${d}) @definition.method`).join("\n")}
`,
  opaque: ["lambda_expression"],
  wrappers: ["template_declaration", "linkage_specification"],
};
