/**
 * Lowers the minimum size of the memory a wasm module imports (`env.memory`), in place, keeping the
 * number's width in bytes: true when it did, false (the bytes untouched) when the module is not laid
 * out as expected — no such import, a minimum already this low, or one too wide to rewrite.
 *
 * Why: web-tree-sitter's runtime asks for 512 pages (32 MB) at start, though its data and stack end
 * at 80 KB and its allocator grows the memory as parsers need it. V8 collects the young generation
 * whenever young array buffers reach 32 MB (twice the largest semi-space) and another is made, so a
 * memory of exactly 32 MB forced two extra collections of the young heap, in the parser's load, while
 * the first command waits: a `cairn run` that parses a command collected 10 times instead of 8
 * (~3 ms more of its ~12 ms of collection), and held 1 MB more.
 */
export function lowerMemoryMinimum(wasm: Uint8Array, pages: number): boolean {
  const limits = memoryImportLimits(wasm);
  if (limits === undefined || limits.minimum <= pages) return false;
  const { start, width } = limits.minimumAt;
  if (pages >= 2 ** (7 * width)) return false;
  // LEB128 with a fixed width: every byte but the last carries the continuation bit (padding is valid wasm).
  for (let i = 0; i < width; i++) {
    const bits = Math.floor(pages / 2 ** (7 * i)) & 0x7f;
    wasm[start + i] = i < width - 1 ? bits | 0x80 : bits;
  }
  return true;
}

type Limits = { minimum: number; minimumAt: { start: number; width: number } };

/** The limits of the module's `env.memory` import, or undefined. Reads the import section only. */
function memoryImportLimits(wasm: Uint8Array): Limits | undefined {
  try {
    return readMemoryImport(wasm);
  } catch (error) {
    if (error instanceof RangeError) return undefined; // cut short: not a module to touch
    throw error;
  }
}

function readMemoryImport(wasm: Uint8Array): Limits | undefined {
  const reader = new Reader(wasm);
  if (reader.u32le() !== 0x6d736100) return undefined; // "\0asm"
  reader.at += 4; // version
  while (reader.at < wasm.length) {
    const section = reader.byte();
    const size = reader.leb();
    const end = reader.at + size;
    if (section !== importSection) {
      reader.at = end;
      continue;
    }
    for (let count = reader.leb(); count > 0; count--) {
      const module = reader.name();
      const name = reader.name();
      const kind = reader.byte();
      if (kind === memoryKind) {
        const flags = reader.byte();
        const start = reader.at;
        const minimum = reader.leb();
        // A plain 32-bit memory: neither shared nor 64-bit.
        if (module === "env" && name === "memory" && (flags & ~hasMaximumFlag) === 0) return { minimum, minimumAt: { start, width: reader.at - start } };
        if (flags & hasMaximumFlag) reader.leb();
      } else if (kind === functionKind) reader.leb();
      else if (kind === tableKind) {
        reader.byte(); // the element type
        const flags = reader.byte();
        reader.leb();
        if (flags & hasMaximumFlag) reader.leb();
      } else if (kind === globalKind) reader.at += 2; // value type, mutability
      else return undefined;
    }
    return undefined;
  }
  return undefined;
}

const importSection = 2;
const functionKind = 0;
const tableKind = 1;
const memoryKind = 2;
const globalKind = 3;
const hasMaximumFlag = 1;

const utf8 = new TextDecoder();

class Reader {
  at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  byte(): number {
    if (this.at >= this.bytes.length) throw new RangeError("wasm ends early");
    return this.bytes[this.at++] as number;
  }

  u32le(): number {
    return (this.byte() | (this.byte() << 8) | (this.byte() << 16) | (this.byte() << 24)) >>> 0;
  }

  leb(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.byte();
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new RangeError("wasm number too long");
  }

  name(): string {
    const length = this.leb();
    const text = utf8.decode(this.bytes.subarray(this.at, this.at + length));
    this.at += length;
    return text;
  }
}
