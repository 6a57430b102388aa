import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Language } from "web-tree-sitter";

type TreeSitter = typeof import("web-tree-sitter");

// Resolved from this module, so the same code finds the wasm files from src, from dist and from an
// installed @cairn/core.
const require = createRequire(import.meta.url);

/** The part of JavaScript's WebAssembly global used here (the libraries this package compiles against leave it out). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => WasmInstance;
};
type WasmModule = object;
type WasmInstance = object;

let runtime: Promise<TreeSitter> | undefined;

/**
 * web-tree-sitter, its runtime initialised once per process (the command classifier and the code
 * outline share it). The runtime's wasm is read and compiled synchronously, as each grammar is
 * (`loadGrammar`): the first command waits for the parser, and every asynchronous step of a load
 * would wait its turn behind the reply being streamed and the checkpoint being written.
 */
export function treeSitter(): Promise<TreeSitter> {
  runtime ??= import("web-tree-sitter")
    .then(async (loaded) => {
      await loaded.Parser.init({ instantiateWasm: instantiateNow });
      return loaded;
    })
    .catch((error: unknown) => {
      runtime = undefined; // let a later call try again
      throw error;
    });
  return runtime;
}

/** Emscripten's hook for instantiating the runtime: compiled and instantiated here and now, handed back at once. */
function instantiateNow(imports: object, receive: (instance: WasmInstance, module: WasmModule) => void): object {
  const module = new WebAssembly.Module(readFileSync(require.resolve("web-tree-sitter/web-tree-sitter.wasm")));
  receive(new WebAssembly.Instance(module, imports), module);
  return {};
}

/**
 * A grammar from its wasm file (a path a package resolves), read and compiled synchronously (~5 ms for
 * the 1.4 MB bash grammar; V8 compiles its functions lazily either way). `Language.load` would read
 * it through `import("fs/promises")`, which starts Node's ES module loader in a CommonJS process, and
 * then wait for two more turns of the event loop.
 */
export function loadGrammar(loaded: TreeSitter, file: string): Language {
  return loaded.Language.loadSync(new WebAssembly.Module(readFileSync(file)));
}
