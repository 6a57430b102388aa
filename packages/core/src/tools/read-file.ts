import type { FileHandle } from "node:fs/promises";
import { z } from "zod";
import { displayPath } from "../policy/workspace.js";
import { hostFilesFor, openChecked, type OpenedFile, type TextFiles } from "./files/index.js";
import { releaseLineChunk, takeLineChunk, type LineChunk } from "./line-chunks.js";
import { documentKind, extractDocumentText, imagePart, maxImageBytes } from "./read-document.js";
import { defineTool, type ToolResult } from "./tool.js";

/** A read shows at most this many lines... */
const MAX_LINES = 2000;
/** ...and at most this many bytes; the window ends at the last whole line that fits. */
const MAX_BYTES = 256 * 1024;
/** A NUL byte in this many leading bytes marks a binary file (git's heuristic). */
const BINARY_SNIFF_BYTES = 8 * 1024;
/** Large enough that a big file takes few trips to the disk thread (each costs more than scanning the bytes). */
const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

const parameters = z.object({
  path: z.string().describe("File path, relative to the workspace (or absolute)."),
  start_line: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("First line, 1-based (default 1)."),
  end_line: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Last line, inclusive (default: the end)."),
  line_numbers: z.boolean().optional().describe('true to prefix each line with its number ("12 | "), e.g. before an edit.'),
});

const description = `Read a file's content exactly as stored (whitespace and line endings kept).
Files over ${MAX_LINES} lines or ${MAX_BYTES / 1024} KB come back as their first ${MAX_LINES} lines (or ${MAX_BYTES / 1024} KB) and a note such as "[Showing lines 1-${MAX_LINES} of 58211. Use start_line/end_line to read more.]"; read on with start_line and end_line, only the lines you need.
PDF and DOCX come back as text; images (PNG, JPEG, GIF, WebP) as pictures when the model takes images; other binary files cannot be read.

Example:
<read_file>
<path>src/main.ts</path>
<start_line>120</start_line>
<end_line>180</end_line>
</read_file>`;

export const readFileTool = defineTool({
  name: "read_file",
  description,
  parameters,
  kind: "read",
  modes: ["act", "plan"],
  access: (input) => [{ type: "read", path: input.path }],
  summarize: (input) => {
    const range =
      input.start_line !== undefined || input.end_line !== undefined
        ? ` lines ${input.start_line ?? 1}-${input.end_line ?? "end"}`
        : "";
    return `read ${input.path}${range}`;
  },
  async execute(input, ctx) {
    const absolute = ctx.resolvePath(input.path);
    const shown = displayPath(ctx.cwd, absolute);
    const first = input.start_line ?? 1;
    const requestedLast = input.end_line ?? Number.POSITIVE_INFINITY;
    if (requestedLast < first) {
      return failure(`end_line (${requestedLast}) is before start_line (${first}). Give a range with start_line <= end_line.`);
    }

    // Opened once, checked on what it really is, and read only through that descriptor.
    let opened: OpenedFile;
    try {
      const outcome = await openChecked(ctx, absolute, shown);
      if (!outcome.ok) return failure(outcome.message);
      opened = outcome;
    } catch (error) {
      if (isNotFound(error)) {
        return failure(`File not found: ${shown}. Use list_files on its folder to see which files exist.`);
      }
      if (isAccessDenied(error)) return failure(`Permission denied reading ${shown}. Ask the user to make it readable, or read another file.`);
      if (errorCode(error) === "ENXIO") return failure(notRegular(shown));
      throw error;
    }
    // The file's language server (if any) starts now and learns the file: an edit's check then starts warm.
    if (opened.stats.isFile()) ctx.checks?.read(opened.real);
    try {
      return await readOpened(opened, input, shown, ctx.modelSupportsImages, ctx.signal, hostFilesFor(ctx, opened.real));
    } finally {
      await opened.handle.close();
    }
  },
});

async function readOpened(
  opened: OpenedFile,
  input: z.infer<typeof parameters>,
  shown: string,
  modelSupportsImages: boolean,
  signal: AbortSignal,
  host: TextFiles | undefined,
): Promise<ToolResult> {
  const { handle, stats } = opened;
  const first = input.start_line ?? 1;
  const requestedLast = input.end_line ?? Number.POSITIVE_INFINITY;
  if (stats.isDirectory()) {
    return failure(`${shown} is a directory, not a file. Use list_files to see what it contains.`);
  }
  if (!stats.isFile()) return failure(notRegular(shown));

  const kind = documentKind(opened.real);
  if (kind === "image") {
    if (!modelSupportsImages) return failure(`${shown} is an image, and the current model cannot take images. Describe what you need from it to the user, or use a model that accepts images.`);
    if (stats.size > maxImageBytes) return failure(`${shown} is an image of ${stats.size} bytes, over the ${maxImageBytes / 1024 / 1024} MB a model accepts.`);
    return { content: [{ type: "text", text: `[Image ${shown}, ${stats.size} bytes]` }, imagePart(opened.real, await handle.readFile())] };
  }
  if (kind === "pdf" || kind === "docx") {
    let text: string;
    try {
      text = await extractDocumentText(await handle.readFile(), kind);
    } catch (error) {
      return failure(`Could not extract text from ${shown} (${(error as Error).message}). The file may be damaged or encrypted.`);
    }
    return { content: windowOfText(text, first, requestedLast, shown, input.line_numbers === true) };
  }

  let scan: Scan;
  try {
    // An editor host's buffer (unsaved edits included) stands for the file's text.
    const source = host === undefined ? chunksOf(handle) : chunksOfBuffer(Buffer.from(await host.readText(opened.real), "utf8"));
    scan = await scanLines(source, first, Math.min(requestedLast, first + MAX_LINES - 1), signal);
  } catch (error) {
    if (!isAccessDenied(error)) throw error;
    return failure(`Permission denied reading ${shown}. Ask the user to make it readable, or read another file.`);
  }
  if (scan.binary) {
    return failure(`${shown} is a binary file (${stats.size} bytes); it cannot be read as text.`);
  }
  if (scan.totalLines === 0) {
    if (input.start_line !== undefined && input.start_line > 1) {
      return failure(`${shown} is empty, so there is no line ${input.start_line}.`);
    }
    return { content: `[${shown} is empty.]` };
  }
  if (first > scan.totalLines) {
    return failure(
      `start_line ${first} is past the end of ${shown}, which has ${scan.totalLines} line${scan.totalLines === 1 ? "" : "s"}. Use a start_line from 1 to ${scan.totalLines}.`,
    );
  }

  // ignoreBOM keeps a byte-order mark in the text, so what the model sees is what is on disk.
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(scan.window);
  const wantedLast = Math.min(requestedLast, scan.totalLines);
  const shownText = input.line_numbers === true && !scan.cutLine ? numberLines(text, first) : text;
  if (first === 1 && scan.lastShown === scan.totalLines && !scan.cutLine) return { content: shownText };

  const note = scan.cutLine
    ? `[Line ${first} is too long to show whole; showing its first ${scan.window.length} bytes. Use a command such as cut or head -c to inspect it.]`
    : scan.lastShown < wantedLast
      ? `[Showing lines ${first}-${scan.lastShown} of ${scan.totalLines}. Use start_line/end_line to read more.]`
      : `[Showing lines ${first}-${scan.lastShown} of ${scan.totalLines}.]`;
  const separator = shownText.endsWith("\n") ? "" : "\n";
  return { content: `${shownText}${separator}${note}` };
}

function notRegular(shown: string): string {
  return `${shown} is not a regular file (a device, socket or pipe); it cannot be read as text.`;
}

/** Prefixes each line with its number, right-aligned: "  9 | text". */
function numberLines(text: string, first: number): string {
  const lines = text.split("\n");
  const trailing = lines[lines.length - 1] === "" ? lines.pop() : undefined;
  const width = String(first + lines.length - 1).length;
  const numbered = lines.map((line, i) => `${String(first + i).padStart(width)} | ${line}`).join("\n");
  return trailing === undefined ? numbered : `${numbered}\n`;
}

/** A window of text already in memory (extracted from a document), under the same caps as files. */
function windowOfText(text: string, first: number, requestedLast: number, shown: string, lineNumbers: boolean): string {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const total = lines.length;
  if (total === 0) return `[${shown} has no extractable text (it may be scanned images).]`;
  if (first > total) return `[start_line ${first} is past the end of the text of ${shown}, which has ${total} lines.]`;
  const last = Math.min(requestedLast, total, first + MAX_LINES - 1);
  let window = lines.slice(first - 1, last);
  let bytes = 0;
  const fit = window.findIndex((line) => (bytes += Buffer.byteLength(line) + 1) > MAX_BYTES);
  if (fit > 0) window = window.slice(0, fit);
  const lastShown = first + window.length - 1;
  const body = `${window.join("\n")}\n`;
  const numbered = lineNumbers ? numberLines(body, first) : body;
  const header = `[Text extracted from ${shown}]\n`;
  if (first === 1 && lastShown === total) return `${header}${numbered}`;
  const more = lastShown < Math.min(requestedLast, total) ? " Use start_line/end_line to read more." : "";
  return `${header}${numbered}[Showing lines ${first}-${lastShown} of ${total}.${more}]`;
}

type Scan = {
  binary: boolean;
  /** Lines in the file; a final line without a newline counts, an empty file has none. */
  totalLines: number;
  /** The bytes of lines `first..lastShown`, whole lines only unless `cutLine`. */
  window: Buffer;
  lastShown: number;
  /** The first requested line alone exceeded the byte cap and was cut. */
  cutLine: boolean;
};

/**
 * One streaming pass: collects the bytes of lines `first..last` (bounded by MAX_BYTES) and counts
 * every line, so a window of a huge file costs memory for the window only.
 */
async function scanLines(readChunk: (into: Buffer) => Promise<number>, first: number, last: number, signal: AbortSignal): Promise<Scan> {
  const chunk = takeLineChunk(CHUNK_BYTES);
  try {
    return await scanChunks(chunk, readChunk, first, last, signal);
  } finally {
    releaseLineChunk(chunk);
  }
}

async function scanChunks(chunk: LineChunk, readChunk: (into: Buffer) => Promise<number>, first: number, last: number, signal: AbortSignal): Promise<Scan> {
  const bytes = chunk.bytes;
  const pieces: Buffer[] = [];
  let windowBytes = 0;
  let lineNumber = 1; // the line the next byte belongs to
  let lineHasBytes = false;
  let lastShown = first - 1;
  let collecting = true;
  let cutLine = false;
  // Where the current line's bytes begin in `pieces`, to drop a line that turns out not to fit.
  let lineStartPieces = 0;
  let lineStartBytes = 0;
  let sniffed = 0;

  for (;;) {
    signal.throwIfAborted();
    const bytesRead = await readChunk(bytes);
    if (bytesRead === 0) break;
    if (sniffed < BINARY_SNIFF_BYTES) {
      const sniffEnd = Math.min(bytesRead, BINARY_SNIFF_BYTES - sniffed);
      if (bytes.subarray(0, sniffEnd).includes(0)) {
        return { binary: true, totalLines: 0, window: Buffer.alloc(0), lastShown: 0, cutLine: false };
      }
      sniffed += sniffEnd;
    }

    // Before and after the window only lines are counted, a chunk at a time (a read of a few
    // lines near the end of a large file is mostly this); lines are walked one by one only in the
    // chunks the window touches.
    const lastByteEndsLine = bytes[bytesRead - 1] === NEWLINE;
    if (!collecting) {
      lineNumber += chunk.countNewlines(0, bytesRead);
      lineHasBytes = !lastByteEndsLine;
      continue;
    }
    if (lineNumber < first) {
      const newlines = chunk.countNewlines(0, bytesRead);
      if (lineNumber + newlines < first) {
        lineNumber += newlines;
        lineHasBytes = !lastByteEndsLine;
        continue;
      }
    }
    let start = 0;
    while (lineNumber < first && start < bytesRead) {
      const newline = bytes.indexOf(NEWLINE, start);
      if (newline === -1 || newline >= bytesRead) {
        start = bytesRead;
        lineHasBytes = true;
        break;
      }
      lineNumber += 1;
      lineHasBytes = false;
      start = newline + 1;
    }
    while (start < bytesRead) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline === -1 || newline >= bytesRead ? bytesRead : newline + 1;
      const endsLine = end === newline + 1 && newline !== -1;

      if (collecting && lineNumber >= first && lineNumber <= last) {
        const segment = bytes.subarray(start, end);
        if (windowBytes + segment.length <= MAX_BYTES) {
          pieces.push(Buffer.from(segment));
          windowBytes += segment.length;
        } else if (lineNumber === first) {
          const kept = Buffer.from(segment.subarray(0, charBoundary(segment, MAX_BYTES - windowBytes)));
          pieces.push(kept);
          windowBytes += kept.length;
          lastShown = first;
          cutLine = true;
          collecting = false;
        } else {
          pieces.length = lineStartPieces;
          windowBytes = lineStartBytes;
          collecting = false;
        }
      }

      if (endsLine) {
        if (collecting && lineNumber >= first && lineNumber <= last) lastShown = lineNumber;
        if (lineNumber >= last) collecting = false;
        lineNumber += 1;
        lineHasBytes = false;
        lineStartPieces = pieces.length;
        lineStartBytes = windowBytes;
      } else {
        lineHasBytes = true;
      }
      start = end;
      if (!collecting && start < bytesRead) {
        lineNumber += chunk.countNewlines(start, bytesRead);
        lineHasBytes = !lastByteEndsLine;
        break;
      }
    }
  }

  // A final line without a trailing newline.
  const totalLines = lineHasBytes ? lineNumber : lineNumber - 1;
  if (lineHasBytes && collecting && lineNumber >= first && lineNumber <= last) lastShown = lineNumber;
  return { binary: false, totalLines, window: Buffer.concat(pieces, windowBytes), lastShown, cutLine };
}

/** Reads a file's next bytes into a chunk buffer; 0 at the end. */
function chunksOf(handle: FileHandle): (into: Buffer) => Promise<number> {
  return async (into) => (await handle.read(into, 0, into.length, null)).bytesRead;
}

/** The same over bytes already in memory. */
function chunksOfBuffer(bytes: Buffer): (into: Buffer) => Promise<number> {
  let offset = 0;
  return async (into) => {
    const n = bytes.copy(into, 0, offset, Math.min(offset + into.length, bytes.length));
    offset += n;
    return n;
  };
}

/** The largest length <= `limit` that does not split a UTF-8 sequence. */
function charBoundary(bytes: Buffer, limit: number): number {
  let end = Math.min(limit, bytes.length);
  while (end > 0 && end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return end;
}

function failure(content: string): ToolResult {
  return { content, isError: true };
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

function isAccessDenied(error: unknown): boolean {
  const code = errorCode(error);
  return code === "EACCES" || code === "EPERM";
}

function isNotFound(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}
