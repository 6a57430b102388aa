import { describe, expect, it } from "vitest";
import { countNewlinesIn, releaseLineChunk, simdCounting, takeLineChunk } from "./line-chunks.js";

/** Bytes where about one in `every` is a newline, the rest anything (UTF-8 lead bytes and NULs included). */
function randomBytes(length: number, every: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state % every === 0 ? 0x0a : state >>> 24;
  }
  return bytes;
}

describe("line chunks", () => {
  it("count with WebAssembly SIMD on this Node", () => {
    expect(simdCounting()).toBe(true);
  });

  it("count every newline of any range, at any offset and length, like indexOf", () => {
    const chunk = takeLineChunk(64 * 1024);
    try {
      const source = randomBytes(chunk.bytes.length, 7, 42);
      source.copy(chunk.bytes);
      for (let trial = 0; trial < 500; trial++) {
        const start = (trial * 7919) % 4000;
        const end = Math.min(chunk.bytes.length, start + ((trial * 104729) % 60000));
        expect(chunk.countNewlines(start, end), `bytes ${start}..${end}`).toBe(countNewlinesIn(source, start, end));
      }
      expect(chunk.countNewlines(0, chunk.bytes.length)).toBe(countNewlinesIn(source));
      expect(chunk.countNewlines(5, 5)).toBe(0);
    } finally {
      releaseLineChunk(chunk);
    }
  });

  it("count a chunk of only newlines, and one with none", () => {
    const chunk = takeLineChunk(1024 * 1024);
    try {
      chunk.bytes.fill(0x0a);
      expect(chunk.countNewlines(0, chunk.bytes.length)).toBe(1024 * 1024);
      chunk.bytes.fill(0x0b);
      expect(chunk.countNewlines(3, chunk.bytes.length - 1)).toBe(0);
    } finally {
      releaseLineChunk(chunk);
    }
  });

  it("hand a released chunk to the next read instead of a new one", () => {
    const chunk = takeLineChunk(4096);
    releaseLineChunk(chunk);
    const again = takeLineChunk(4096);
    expect(again).toBe(chunk);
    const other = takeLineChunk(4096);
    expect(other).not.toBe(chunk);
    releaseLineChunk(again);
    releaseLineChunk(other);
  });
});
