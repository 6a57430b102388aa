import type { DiffBlock } from "./parse-blocks.js";

/** read_file's line numbers: "12 | text", right-aligned ("  9 | "); an empty line may have lost its trailing space. */
const PREFIX = /^ *(\d+) \|(?: |$)/;

/** True when every line carries a line-number prefix, numbered consecutively (as read_file prints them). */
export function hasLineNumbers(lines: readonly string[]): boolean {
  if (lines.length === 0) return false;
  let expected: number | undefined;
  for (const line of lines) {
    const m = PREFIX.exec(line);
    if (m === null) return false;
    const n = Number(m[1]);
    if (expected !== undefined && n !== expected) return false;
    expected = n + 1;
  }
  return true;
}

function strip(line: string): string {
  const m = PREFIX.exec(line);
  return m === null ? line : line.slice(m[0].length);
}

/**
 * The block as the model meant it when it pasted lines from read_file with their numbers: every
 * SEARCH line loses its prefix, and so does each REPLACE line that carries one (lines it wrote
 * itself usually do not). Undefined unless every SEARCH line is numbered, consecutively. Only tried
 * after the block as written matched nothing, so a file whose own lines look like "1 | x" is matched
 * as it is first.
 */
export function withoutLineNumbers(block: DiffBlock): DiffBlock | undefined {
  if (!hasLineNumbers(block.search)) return undefined;
  return { ...block, search: block.search.map(strip), replace: block.replace.map(strip) };
}
