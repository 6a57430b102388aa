import path from "node:path";
import type { LanguageSpec } from "./language-spec.js";
import { c } from "./languages/c.js";
import { cpp } from "./languages/cpp.js";
import { csharp } from "./languages/csharp.js";
import { go } from "./languages/go.js";
import { java } from "./languages/java.js";
import { javascript } from "./languages/javascript.js";
import { php } from "./languages/php.js";
import { python } from "./languages/python.js";
import { ruby } from "./languages/ruby.js";
import { rust } from "./languages/rust.js";
import { tsx, typescript } from "./languages/typescript.js";

export const languages = { typescript, tsx, javascript, python, go, rust, java, c, cpp, csharp, ruby, php } as const;

export type LanguageId = keyof typeof languages;

/**
 * File extension → the languages to try, in order: the first that parses without errors wins.
 * A `.h` header is C or C++ and nothing in its name says which. It is read as C++ first, because
 * the C grammar takes C++ without complaint but wrongly (`namespace net {` becomes an old-style
 * function definition), while C reads the same as C++ except where it uses C++ keywords as names
 * (`int *new;`): then the C++ parse has errors and C gets its turn.
 */
const byExtension: Readonly<Record<string, readonly LanguageId[]>> = {
  ".ts": ["typescript"],
  ".mts": ["typescript"],
  ".cts": ["typescript"],
  ".tsx": ["tsx"],
  ".js": ["javascript"],
  ".mjs": ["javascript"],
  ".cjs": ["javascript"],
  ".jsx": ["javascript"],
  ".py": ["python"],
  ".pyi": ["python"],
  ".go": ["go"],
  ".rs": ["rust"],
  ".java": ["java"],
  ".c": ["c"],
  ".h": ["cpp", "c"],
  ".cc": ["cpp"],
  ".cpp": ["cpp"],
  ".cxx": ["cpp"],
  ".c++": ["cpp"],
  ".hh": ["cpp"],
  ".hpp": ["cpp"],
  ".hxx": ["cpp"],
  ".h++": ["cpp"],
  ".ipp": ["cpp"],
  ".cs": ["csharp"],
  ".rb": ["ruby"],
  ".rake": ["ruby"],
  ".php": ["php"],
};

/** The extensions the outliner reads, for messages: ".ts, .tsx, ...". */
export const sourceExtensions: readonly string[] = Object.keys(byExtension);

/** The languages to try for a file, by its extension; empty when it is not a source file the outliner reads. */
export function languagesForFile(fileName: string): readonly LanguageSpec[] {
  const ids = byExtension[path.extname(fileName).toLowerCase()] ?? [];
  return ids.map((id) => languages[id]);
}
