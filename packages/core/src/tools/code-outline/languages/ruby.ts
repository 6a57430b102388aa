import type { LanguageSpec } from "../language-spec.js";

export const ruby: LanguageSpec = {
  id: "ruby",
  displayName: "Ruby",
  grammar: "@vscode/tree-sitter-wasm/wasm/tree-sitter-ruby.wasm",
  query: `
(module name: (_) @name) @definition.module
(class name: (_) @name) @definition.class
(singleton_class) @definition.class
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method
`,
  // Blocks (`do ... end`, `{ ... }`) run code: a def inside one is not part of the file's structure.
  opaque: ["block", "do_block", "lambda"],
  wrappers: [],
  // `def helper; end` on one line
  trailing: /(\s*;\s*end|[\s;])+$/,
};
