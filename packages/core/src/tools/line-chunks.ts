/**
 * Buffers to read a file into, chunk by chunk, that count their own newline bytes fast.
 *
 * A read of a few lines near the end of a large file (a build log, a generated bundle) scans every
 * byte before them to know the line numbers, and every byte after to know how many lines there
 * are. Counting newlines with `indexOf` costs one call per line, ~1.7 ms per 16 MB on the main
 * thread, where it also holds up every other read of the same reply. A chunk that lives in a
 * WebAssembly memory is counted 64 bytes at a time by SIMD compares, ~5× faster, and the file is
 * read straight into that memory, so no byte is copied for it. Where WebAssembly SIMD is missing
 * the chunk is a plain Buffer counted with `indexOf`.
 */

export type LineChunk = {
  /** Read into this; it is reused by later reads once released. */
  readonly bytes: Buffer;
  /** How many newline bytes `bytes[start..end)` holds. */
  countNewlines(start: number, end: number): number;
};

/** Chunks kept for reuse after release, so a read costs no fresh pages: enough for a reply's reads at once. */
const POOL_SIZE = 8;
const NEWLINE = 0x0a;
const WASM_PAGE = 64 * 1024;
/** The bytes the counter takes per step: four 16-byte vectors. */
const BLOCK = 64;

/** What this file uses of the WebAssembly global (Node 20's type definitions leave it out). */
type Wasm = {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
};
const wasm = (globalThis as { WebAssembly?: Wasm }).WebAssembly;

const pools = new Map<number, LineChunk[]>();

/** A chunk of `size` bytes; give it back with `releaseLineChunk` when the read is done. */
export function takeLineChunk(size: number): LineChunk {
  return pools.get(size)?.pop() ?? newChunk(size);
}

export function releaseLineChunk(chunk: LineChunk): void {
  const pool = pools.get(chunk.bytes.length) ?? [];
  pools.set(chunk.bytes.length, pool);
  if (pool.length < POOL_SIZE) pool.push(chunk);
}

/** The same count over any bytes, one `indexOf` per line. */
export function countNewlinesIn(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let count = 0;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start);
  for (let at = view.indexOf(NEWLINE); at !== -1; at = view.indexOf(NEWLINE, at + 1)) count += 1;
  return count;
}

function newChunk(size: number): LineChunk {
  const counter = simdCounter();
  if (counter === undefined) {
    const bytes = Buffer.allocUnsafe(size);
    return { bytes, countNewlines: (start, end) => countNewlinesIn(bytes, start, end) };
  }
  const memory = new counter.wasm.Memory({ initial: Math.ceil(size / WASM_PAGE) });
  const instance = new counter.wasm.Instance(counter.module, { env: { memory } });
  const count = instance.exports.count as (start: number, end: number) => number;
  const bytes = Buffer.from(memory.buffer, 0, size);
  return {
    bytes,
    countNewlines(start, end) {
      // Whole blocks in WebAssembly, the few bytes after the last one here.
      const blocksEnd = start + (end - start) - ((end - start) % BLOCK);
      return count(start, blocksEnd) + countNewlinesIn(bytes, blocksEnd, end);
    },
  };
}

/** True where chunks are counted by WebAssembly SIMD (Node 16.4 and later), false where they fall back to `indexOf`. */
export function simdCounting(): boolean {
  return simdCounter() !== undefined;
}

let compiled: { wasm: Wasm; module: object } | null | undefined;

/** The compiled counter, or undefined where this runtime has no WebAssembly SIMD. */
function simdCounter(): { wasm: Wasm; module: object } | undefined {
  if (compiled === undefined) {
    try {
      compiled = wasm === undefined ? null : { wasm, module: new wasm.Module(counterModule()) };
    } catch {
      compiled = null;
    }
  }
  return compiled ?? undefined;
}

/**
 * The module, assembled here so its every instruction can be read:
 *
 *   (import "env" "memory" (memory 1))
 *   (func (export "count") (param $at i32) (param $end i32) (result i32)
 *     (local $sums v128) (local $newlines v128)
 *     $newlines = i8x16.splat(10)
 *     if $at < $end: loop                      ;; $end - $at is a multiple of 64
 *       ;; a newline byte compares to -1, so the four compares' sum is -4..0 in each byte lane;
 *       ;; two pairwise widenings add each 4 byte lanes into one i32 lane
 *       $hits = i8x16.eq(v128.load($at), $newlines) + ... + i8x16.eq(v128.load($at + 48), $newlines)
 *       $sums += i32x4.extadd_pairwise_i16x8_s(i16x8.extadd_pairwise_i8x16_s($hits))
 *       $at += 64; continue while $at < $end
 *     return -(lane 0 + lane 1 + lane 2 + lane 3 of $sums)
 *
 * A 1 MB chunk puts at most 262,144 in a lane, far from overflowing it. ($hits stays on the stack.)
 */
function counterModule(): Uint8Array {
  const op = {
    block: 0x02,
    loop: 0x03,
    end: 0x0b,
    brIf: 0x0d,
    localGet: 0x20,
    localSet: 0x21,
    localTee: 0x22,
    i32LtU: 0x49,
    i32GeU: 0x4f,
    i32Add: 0x6a,
    i32Sub: 0x6b,
    void: 0x40,
  };
  const type = { i32: 0x7f, v128: 0x7b, func: 0x60 };
  const simd = { load: 0x00, i8x16Splat: 0x0f, i32x4ExtractLane: 0x1b, i8x16Eq: 0x23, i8x16Add: 0x6e, widen8to16: 0x7c, widen16to32: 0x7e, i32x4Add: 0xae };
  const [at, end, sums, newlines] = [0, 1, 2, 3];

  const body = [
    ...vector([[2, type.v128]]), // $sums, $newlines
    ...i32Const(NEWLINE), ...simdOp(simd.i8x16Splat), op.localSet, newlines,
    op.block, op.void,
    op.localGet, at, op.localGet, end, op.i32GeU, op.brIf, 0,
    op.loop, op.void,
    op.localGet, sums,
    ...[0, 16, 32, 48].flatMap((offset, i) => [
      op.localGet, at, ...simdOp(simd.load), 0 /* align 2^0: any address */, offset,
      op.localGet, newlines, ...simdOp(simd.i8x16Eq),
      ...(i === 0 ? [] : simdOp(simd.i8x16Add)),
    ]),
    ...simdOp(simd.widen8to16), ...simdOp(simd.widen16to32), ...simdOp(simd.i32x4Add),
    op.localSet, sums,
    op.localGet, at, ...i32Const(BLOCK), op.i32Add, op.localTee, at,
    op.localGet, end, op.i32LtU, op.brIf, 0,
    op.end,
    op.end,
    ...i32Const(0),
    ...[0, 1, 2, 3].flatMap((lane) => [op.localGet, sums, ...simdOp(simd.i32x4ExtractLane), lane, op.i32Sub]),
    op.end,
  ];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
    ...section(1, vector([[type.func, ...vector([[type.i32], [type.i32]]), ...vector([[type.i32]])]])),
    ...section(2, vector([[...name("env"), ...name("memory"), 0x02 /* memory */, 0x00 /* no maximum */, 1]])),
    ...section(3, vector([[0]])),
    ...section(7, vector([[...name("count"), 0x00 /* function */, 0]])),
    ...section(10, vector([[...unsignedLeb(body.length), ...body]])),
  ]);
}

/** i32.const, whose operand is a signed LEB128 (64 written unsigned would read as -64). */
function i32Const(value: number): number[] {
  return [0x41, ...signedLeb(value)];
}

function simdOp(code: number): number[] {
  return [0xfd, ...unsignedLeb(code)];
}

function section(id: number, content: number[]): number[] {
  return [id, ...unsignedLeb(content.length), ...content];
}

function vector(items: number[][]): number[] {
  return [...unsignedLeb(items.length), ...items.flat()];
}

function name(text: string): number[] {
  return vector([...Buffer.from(text, "utf8")].map((byte) => [byte]));
}

function unsignedLeb(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

function signedLeb(value: number): number[] {
  const bytes: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    const last = (value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0);
    bytes.push(last ? byte : byte | 0x80);
    if (last) return bytes;
  }
}
