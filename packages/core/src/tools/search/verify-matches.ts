import type { FileHandle } from "node:fs/promises";
import { openChecked, type Boundary } from "../files/index.js";
import type { FileMatches } from "./collect-matches.js";

const CHUNK_BYTES = 64 * 1024;
/** A line longer than this cannot be confirmed; its file is left out rather than shown unchecked. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

export type VerifiedMatches = {
  files: FileMatches[];
  /** Files left out because their lines could not be confirmed through a checked read. */
  dropped: FileMatches[];
};

/**
 * rg opens files by name, following whatever link the name is at that instant, so a file swapped
 * for a link to an ignored or outside file while rg walks could lend rg that file's lines. Every
 * line about to be shown is therefore confirmed against the file opened through a checked
 * descriptor now: a file is shown only if each of its lines is really there. Whatever is shown was
 * readable by the rules, whatever rg happened to open.
 */
export async function verifyMatches(files: readonly FileMatches[], boundary: Boundary, display: (absolute: string) => string): Promise<VerifiedMatches> {
  const kept: FileMatches[] = [];
  const dropped: FileMatches[] = [];
  for (const file of files) {
    const confirmed = await confirmLines(file, boundary, display(file.absolute)).catch(() => false);
    (confirmed ? kept : dropped).push(file);
  }
  return { files: kept, dropped };
}

async function confirmLines(file: FileMatches, boundary: Boundary, shown: string): Promise<boolean> {
  const opened = await openChecked(boundary, file.absolute, shown);
  if (!opened.ok) return false;
  try {
    if (!opened.stats.isFile()) return false;
    const wanted = new Map<number, string[]>();
    for (const line of file.lines) wanted.set(line.number, [...(wanted.get(line.number) ?? []), withoutCutMarks(line.text)]);
    const actual = await readLines(opened.handle, new Set(wanted.keys()));
    for (const [number, texts] of wanted) {
      const text = actual.get(number);
      if (text === undefined || !texts.every((shownText) => text.includes(shownText))) return false;
    }
    return true;
  } finally {
    await opened.handle.close();
  }
}

/** The shown text of a line cut to a window around its match is marked with … on the cut sides. */
function withoutCutMarks(text: string): string {
  return text.replace(/^\u2026/, "").replace(/\u2026$/, ""); // the cut mark, "…"
}

/** The wanted lines (1-based) as text without their line ends, read in one pass up to the last one. */
async function readLines(handle: FileHandle, wanted: ReadonlySet<number>): Promise<Map<number, string>> {
  const last = Math.max(0, ...wanted);
  const found = new Map<number, string>();
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let lineNumber = 1;
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  const endLine = () => {
    if (wanted.has(lineNumber)) found.set(lineNumber, stripLineEnd(Buffer.concat(pieces, pieceBytes).toString("utf8")));
    lineNumber += 1;
    pieces = [];
    pieceBytes = 0;
  };
  while (lineNumber <= last) {
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
    if (bytesRead === 0) break;
    let start = 0;
    while (start < bytesRead && lineNumber <= last) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
      if (wanted.has(lineNumber)) {
        if (pieceBytes + (end - start) > MAX_LINE_BYTES) return found; // unconfirmable: the line is missing
        pieces.push(Buffer.from(chunk.subarray(start, end)));
        pieceBytes += end - start;
      }
      if (end === bytesRead) break;
      endLine();
      start = end + 1;
    }
  }
  if (pieceBytes > 0 || pieces.length > 0) endLine();
  return found;
}

function stripLineEnd(text: string): string {
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}
