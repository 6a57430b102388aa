import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Language, Parser } from "web-tree-sitter";
import { lowerMemoryMinimum } from "./memory-minimum.js";

type TreeSitter = typeof import("web-tree-sitter");

// Resolved from this module, so the same code finds the wasm files from src, from dist and from an
// installed @cairn/core.
const require = createRequire(import.meta.url);

/** The part of JavaScript's WebAssembly global used here (the libraries this package compiles against leave it out). */
declare const WebAssembly: {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => WasmInstance;
};
type WasmModule = object;
type WasmInstance = object;

let runtime: Promise<TreeSitter> | undefined;

/**
 * web-tree-sitter, its runtime initialised once per process (the command classifier and the code
 * outline share it). The runtime's wasm (210 KB) is read and compiled synchronously: the first command
 * waits for the parser, and each asynchronous step of the load (Emscripten's own reading and
 * instantiating) would wait its turn behind the reply being streamed and the checkpoint being written.
 * Its memory starts small (lowerMemoryMinimum), which spares the first command two collections.
 */
export function treeSitter(): Promise<TreeSitter> {
  runtime ??= import("web-tree-sitter")
    .then(async (loaded) => {
      const wasm = readFileSync(require.resolve("web-tree-sitter/web-tree-sitter.wasm"));
      const small = lowerMemoryMinimum(wasm, initialPages);
      await loaded.Parser.init({
        ...(small ? { INITIAL_MEMORY: initialPages * wasmPage } : {}),
        instantiateWasm: (imports: object, receive: Receive) => instantiateNow(wasm, imports, receive),
      });
      return loaded;
    })
    .catch((error: unknown) => {
      runtime = undefined; // let a later call try again
      throw error;
    });
  return runtime;
}

/**
 * The runtime's memory starts at 4 MB instead of the 32 MB its module asks for (see
 * lowerMemoryMinimum): enough for the bash grammar and a long script, and it grows for bigger ones.
 */
const initialPages = 64;
const wasmPage = 65536;

type Receive = (instance: WasmInstance, module: WasmModule) => void;

/** Emscripten's hook for instantiating the runtime: compiled and instantiated here and now, handed back at once. */
function instantiateNow(wasm: Uint8Array, imports: object, receive: Receive): object {
  const module = new WebAssembly.Module(wasm);
  receive(new WebAssembly.Instance(module, imports), module);
  return {};
}

/** A grammar loaded, a parser set to it, and the runtime (for queries on it). */
export type LoadedGrammar = { language: Language; parser: Parser; runtime: TreeSitter };

/**
 * A grammar from its wasm file (a path a package resolves), with a parser for it. It compiles on V8's
 * background threads while the runtime starts on this one (V8 compiles its functions lazily either
 * way): for the 1.4 MB bash grammar the parser is ready ~6 ms sooner, for less CPU, than compiling
 * one after the other. `Language.load` would read it through `import("fs/promises")`, which starts
 * Node's ES module loader in a CommonJS process, and wait for two more turns of the event loop.
 */
export async function loadGrammar(file: string): Promise<LoadedGrammar> {
  const compiling = WebAssembly.compile(readFileSync(file));
  compiling.catch(() => undefined); // reported below, unless the runtime failed first
  const runtime = await treeSitter();
  const language = runtime.Language.loadSync(await compiling);
  const parser = new runtime.Parser();
  parser.setLanguage(language);
  return { language, parser, runtime };
}
