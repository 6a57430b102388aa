import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { Worker } from "node:worker_threads";

/**
 * The exact o200k tokenizer, off the main thread. Loading its table costs about 0.7 s of CPU and
 * encoding runs at well under a megabyte a second, so in a worker neither holds up the stream, the
 * terminal UI or the tools. It starts on the first count (only conversations near the window need
 * one, see fit-context.ts) and lives as long as the process, without keeping it alive.
 */

// Plain JavaScript, so the same source runs under the built package and under the tests; the
// tokenizer's files are resolved here, where the package's own dependencies are found.
const source = `(async () => {
  const { parentPort, workerData } = await import("node:worker_threads");
  const lite = await import(workerData.lite);
  const ranks = await import(workerData.ranks);
  const Tiktoken = lite.Tiktoken ?? lite.default.Tiktoken;
  const encoder = new Tiktoken(ranks.default.default ?? ranks.default);
  parentPort.on("message", ({ id, texts }) => {
    parentPort.postMessage({ id, counts: texts.map((text) => encoder.encode(text, [], []).length) });
  });
})();`;

type Pending = { resolve: (counts: number[]) => void; reject: (error: Error) => void };

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

/** A package's module URL, resolved as an import from here (a require resolution where the runner has no import.meta.resolve). */
function moduleUrl(specifier: string): string {
  if (typeof import.meta.resolve === "function") return import.meta.resolve(specifier);
  return pathToFileURL(createRequire(import.meta.url).resolve(specifier)).href;
}

function start(): Worker {
  // Loaded with the first count: most tasks never need one.
  const { Worker } = process.getBuiltinModule("node:worker_threads");
  const started = new Worker(source, {
    eval: true,
    workerData: { lite: moduleUrl("js-tiktoken/lite"), ranks: moduleUrl("js-tiktoken/ranks/o200k_base") },
  });
  started.on("message", ({ id, counts }: { id: number; counts: number[] }) => {
    pending.get(id)?.resolve(counts);
    pending.delete(id);
    if (pending.size === 0) started.unref();
  });
  const fail = (error: Error) => {
    if (worker === started) worker = undefined; // the next count starts a new one
    for (const request of pending.values()) request.reject(error);
    pending.clear();
  };
  started.on("error", fail);
  started.on("exit", (code) => fail(new Error(`The token counter stopped (exit code ${code}).`)));
  return started;
}

/** Exact o200k token counts of `texts`, in order. */
export function countExactly(texts: readonly string[]): Promise<number[]> {
  if (texts.every((text) => text.length === 0)) return Promise.resolve(texts.map(() => 0));
  worker ??= start();
  const id = nextId++;
  const result = new Promise<number[]>((resolve, reject) => pending.set(id, { resolve, reject }));
  // Held open only while a count is awaited: an idle counter never keeps the process running.
  worker.ref();
  worker.postMessage({ id, texts });
  return result;
}
