import { createRequire } from "node:module";
import type { Parser } from "web-tree-sitter";
import { loadGrammar } from "../../tree-sitter/index.js";

// Resolved from this module, so the same code finds the grammar from src, from dist and from an
// installed @cairn/core.
const require = createRequire(import.meta.url);

/**
 * Whoever started Node chose how wasm is compiled (`node --liftoff-only …`, `--no-wasm-tier-up`):
 * then the flags are left as they are.
 */
const tieringChosen = process.execArgv.some((arg) => /^--(no-)?(liftoff|liftoff-only|wasm-tier-up|wasm-dynamic-tiering)\b/.test(arg));

/**
 * Compiles tree-sitter and the bash grammar with V8's baseline wasm compiler (Liftoff) only: tier-up
 * to the optimising compiler is turned off for the process when the parser loads.
 *
 * Node's default tiers hot wasm functions up to the optimising compiler. The bash grammar is 1.4 MB,
 * most of it a few huge lexer and parse-table functions: on the first command that tier-up cost
 * ~0.7 s of CPU and held the main thread for up to a second after the parse (seen as the gap before
 * the next model request), to make parses that take 0.01–0.3 ms (a command under 1 KB) some 30%
 * faster. Baseline code parses the same trees; a 10 KB script still parses in ~10–15 ms. V8 reads the
 * tier-up flags each time a function runs hot, not once per module, so they stay off while commands
 * may still be parsed.
 *
 * V8 stamps code caches with a hash of all its flags, so while they are off, Node's built-ins loaded
 * later compile from source instead of from Node's embedded cache, and a code cache written then
 * would be refused by every later run. A process about to write one at its end calls
 * `restoreWasmTiering` first.
 */
export async function loadBashParser(): Promise<Parser> {
  if (!tieringChosen && !tieringOff) {
    // node:v8 here, not at the module's load: a task that runs no command never needs it
    process.getBuiltinModule("node:v8").setFlagsFromString(tieringOffFlags);
    tieringOff = true;
  }
  const { parser } = await loadGrammar(require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm"));
  // V8 compiles each wasm function when it is first called: one parse of the common shapes now compiles
  // most of the lexer and parser here, where the load happens (beside the first model request), not
  // with the first command.
  parser.parse(warmUp)?.delete();
  return parser;
}

const tieringOffFlags = "--no-wasm-tier-up --no-wasm-dynamic-tiering";
let tieringOff = false;

/**
 * Turns wasm tier-up back on, so V8's flag hash is again the one the process started with: for a
 * process that parses no more commands and is about to write a code cache (a command parsed
 * afterwards still works, and pays the optimising compiler).
 */
export function restoreWasmTiering(): void {
  if (!tieringOff) return;
  process.getBuiltinModule("node:v8").setFlagsFromString("--wasm-tier-up --wasm-dynamic-tiering");
  tieringOff = false;
}

const warmUp = [
  `cd src && FOO=1 git status --short | grep -v '^??' > "out.txt" 2>&1; echo "$(ls -la)" $HOME \${X:-y} || { npm test -- --run; }`,
  "[ -f a ] && cat <<'EOF'",
  "line",
  "EOF",
  `for f in *.ts; do sed -i 's/a/b/' "$f"; done`,
].join("\n");
