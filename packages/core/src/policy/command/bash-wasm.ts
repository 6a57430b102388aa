import { createRequire } from "node:module";
import type { Language, Parser } from "web-tree-sitter";

// Resolved from this module, so the same code finds the wasm files from src, from dist and from
// an installed @cairn/core. (tools/code-outline has its own loader; web-tree-sitter caches its
// runtime module, so both may call Parser.init.)
const require = createRequire(import.meta.url);

/**
 * Whoever started Node chose how wasm is compiled (`node --liftoff-only …`, `--no-wasm-tier-up`):
 * then the flags are left as they are.
 */
const tieringChosen = process.execArgv.some((arg) => /^--(no-)?(liftoff-only|wasm-tier-up|wasm-dynamic-tiering)\b/.test(arg));

/**
 * Compiles tree-sitter and the bash grammar with V8's baseline wasm compiler (Liftoff) only.
 *
 * Node's default tiers hot wasm functions up to the optimising compiler. The bash grammar is 1.4 MB,
 * most of it a few huge lexer and parse-table functions: on the first command that tier-up cost
 * ~0.7 s of CPU and held the main thread for up to a second after the parse (seen as the gap before
 * the next model request), to make parses that take 0.01–0.3 ms (a command under 1 KB) some 30%
 * faster. Baseline code parses the same trees; a 10 KB script still parses in ~10–15 ms.
 *
 * V8 reads the flag when it compiles a module and keeps the choice for that module's life (the
 * functions it compiles lazily later included), so it is set only while these two modules are
 * compiled and put back afterwards: other wasm the process compiles later keeps Node's defaults.
 * Left set, it would cost more than it saves: V8 checks a code cache against a hash of all its
 * flags, so every Node built-in module loaded while a flag differs from Node's start-up flags is
 * compiled from source instead of from Node's embedded cache (set for a whole task, +10–20 ms).
 */
export async function loadBashParser(): Promise<Parser> {
  const v8 = process.getBuiltinModule("node:v8"); // here, not at the module's load: a task that runs no command never needs it
  if (!tieringChosen) v8.setFlagsFromString("--liftoff-only");
  let language: Language;
  let ParserClass: typeof Parser;
  try {
    const treeSitter = await import("web-tree-sitter");
    ParserClass = treeSitter.Parser;
    await ParserClass.init({ locateFile: () => require.resolve("web-tree-sitter/web-tree-sitter.wasm") });
    language = await treeSitter.Language.load(require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm"));
  } finally {
    if (!tieringChosen) v8.setFlagsFromString("--no-liftoff-only");
  }
  const parser = new ParserClass();
  parser.setLanguage(language);
  // V8 compiles each wasm function when it is first called: one parse of the common shapes now compiles
  // most of the lexer and parser here, where the load happens (beside the first model request), not
  // with the first command.
  parser.parse(warmUp)?.delete();
  return parser;
}

const warmUp = [
  `cd src && FOO=1 git status --short | grep -v '^??' > "out.txt" 2>&1; echo "$(ls -la)" $HOME \${X:-y} || { npm test -- --run; }`,
  "[ -f a ] && cat <<'EOF'",
  "line",
  "EOF",
  `for f in *.ts; do sed -i 's/a/b/' "$f"; done`,
].join("\n");
