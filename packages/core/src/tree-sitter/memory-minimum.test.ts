import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { lowerMemoryMinimum } from "./memory-minimum.js";
import { loadGrammar } from "./runtime.js";

const require = createRequire(import.meta.url);

/** The part of JavaScript's WebAssembly global these tests use. */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => object;
  Memory: new (descriptor: { initial: number; maximum?: number }) => { buffer: ArrayBuffer };
  Global: new (descriptor: { value: string; mutable: boolean }, value: number) => object;
  Table: new (descriptor: { element: string; initial: number }) => object;
};

const text = (s: string) => [s.length, ...Buffer.from(s)];

/**
 * A module laid out like web-tree-sitter's runtime: a function, a global and a table imported before
 * `env.memory`, whose minimum of 512 pages takes two bytes. `memoryFlags` 3 makes it shared.
 */
function moduleImportingMemory(memoryFlags = 1): Uint8Array {
  const types = [1, 0x60, 0, 0];
  const imports = [
    4,
    ...text("env"), ...text("f"), 0x00, 0,
    ...text("env"), ...text("g"), 0x03, 0x7f, 1,
    ...text("env"), ...text("t"), 0x01, 0x70, 0x00, 1,
    ...text("env"), ...text("memory"), 0x02, memoryFlags, 0x80, 0x04, 0x80, 0x80, 0x02,
  ];
  return Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, types.length, ...types, 2, imports.length, ...imports]);
}

function instantiateWithPages(wasm: Uint8Array, pages: number): void {
  new WebAssembly.Instance(new WebAssembly.Module(wasm), {
    env: {
      f: () => undefined,
      g: new WebAssembly.Global({ value: "i32", mutable: true }, 0),
      t: new WebAssembly.Table({ element: "anyfunc", initial: 1 }),
      memory: new WebAssembly.Memory({ initial: pages, maximum: 32768 }),
    },
  });
}

describe("lowerMemoryMinimum", () => {
  it("lets the module link with a smaller memory, its other imports read past and left as they were", () => {
    const wasm = moduleImportingMemory();
    expect(() => instantiateWithPages(wasm, 64)).toThrow(/smaller than initial 512/);
    const before = Uint8Array.from(wasm);

    expect(lowerMemoryMinimum(wasm, 64)).toBe(true);
    instantiateWithPages(wasm, 64);
    expect(() => instantiateWithPages(wasm, 63)).toThrow(/smaller than initial 64/);
    expect(wasm.length).toBe(before.length);
    expect(wasm.filter((byte, i) => byte !== before[i]).length).toBe(2); // the minimum's two bytes, nothing else
  });

  it("leaves alone a module it should not or cannot rewrite", () => {
    const shared = moduleImportingMemory(3);
    expect(lowerMemoryMinimum(shared, 64)).toBe(false);
    expect(lowerMemoryMinimum(moduleImportingMemory(), 512)).toBe(false); // already that low
    expect(lowerMemoryMinimum(moduleImportingMemory(), 20000)).toBe(false); // higher, not lower
    const cut = moduleImportingMemory().subarray(0, 40);
    const cutCopy = Uint8Array.from(cut);
    expect(lowerMemoryMinimum(cut, 64)).toBe(false);
    expect(cut).toEqual(cutCopy);
    const noImports = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
    expect(lowerMemoryMinimum(noImports, 64)).toBe(false);
    expect(lowerMemoryMinimum(Uint8Array.from(Buffer.from("not wasm at all")), 64)).toBe(false);
  });

  it("applies to the installed web-tree-sitter runtime (an update that moves its memory import shows here, not as a slower first command)", () => {
    const wasm = readFileSync(require.resolve("web-tree-sitter/web-tree-sitter.wasm"));
    expect(lowerMemoryMinimum(wasm, 64)).toBe(true);
  });

  it("the runtime started small grows for what it parses: a 600 KB script parses whole", async () => {
    const { parser } = await loadGrammar(require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm"));
    const lines = Array.from({ length: 12_000 }, (_, i) => `for f in src/*.ts; do grep -n "item${i}" "$f" | sort > "out-${i}.txt"; done`);
    const script = lines.join("\n");
    expect(script.length).toBeGreaterThan(600_000);
    const tree = parser.parse(script);
    try {
      expect(tree?.rootNode.hasError).toBe(false);
      expect(tree?.rootNode.namedChildCount).toBe(12_000);
      expect(tree?.rootNode.lastNamedChild?.text).toBe(lines.at(-1));
    } finally {
      tree?.delete();
    }
  });
});
