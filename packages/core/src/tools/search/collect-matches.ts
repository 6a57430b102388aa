import path from "node:path";
import type { LineVerdict } from "./ripgrep.js";
import { decodeName as decodeNameBytes } from "../../disk/byte-names.js";

export type SearchLine = { number: number; text: string; isMatch: boolean };

/** One file's kept lines (matches and their context), in line order. */
export type FileMatches = { absolute: string; lines: SearchLine[] };

export type CollectedMatches = {
  /** Files with kept lines, in the order rg reported them. */
  files: FileMatches[];
  /** Matching lines seen in files that are not blocked (kept or only counted). */
  totalMatches: number;
  /** Files with at least one matching line that are not blocked. */
  totalFiles: number;
  /** True when rg finished and printed its summary (a fatal error prints none). */
  sawSummary: boolean;
};

export type CollectOptions = {
  /** rg's working directory, to make its paths absolute. */
  cwd: string;
  /** The policy check every reported file goes through (the source of truth over rg's own ignore handling). */
  isBlocked(absolute: string): boolean;
  /** Matching lines kept with their text. */
  keepLimit: number;
  /** After this many matching lines (kept or counted) the collector asks to stop rg. */
  countLimit: number;
  /** Longer lines are cut to this many characters, around the match for matching lines. */
  maxLineChars: number;
};

type CurrentFile = { absolute: string; blocked: boolean; counted: boolean; kept: FileMatches | undefined };

/**
 * Reads `rg --json` output line by line. Lines are parsed only while there is room to keep them;
 * past that, matches are counted from the line's prefix, which keeps a huge result cheap.
 * rg writes each file's messages together, so "the current file" is well defined.
 */
export class MatchCollector {
  private readonly result: CollectedMatches = {
    files: [],
    totalMatches: 0,
    totalFiles: 0,
    sawSummary: false,
  };
  private kept = 0;
  private current: CurrentFile | undefined;

  constructor(private readonly options: CollectOptions) {}

  get collected(): CollectedMatches {
    return this.result;
  }

  onLine = (line: string): LineVerdict => this.dispatch(fastType(line) ?? parsedType(line), line);

  private dispatch(type: string | undefined, line: string): LineVerdict {
    switch (type) {
      case "match":
        return this.onMatch(line);
      case "context":
        this.onContext(line);
        return "more";
      case "begin":
        this.onBegin(line);
        return "more";
      case "summary":
        this.result.sawSummary = true;
        return "more";
      default:
        return "more";
    }
  }

  private onBegin(line: string): void {
    const reported = beginPath(line);
    if (reported === undefined) {
      this.current = undefined;
      return;
    }
    const absolute = path.resolve(this.options.cwd, reported);
    this.current = { absolute, blocked: this.options.isBlocked(absolute), counted: false, kept: undefined };
  }

  private onMatch(line: string): LineVerdict {
    const file = this.current;
    if (file === undefined || file.blocked) return "more";
    this.result.totalMatches += 1;
    if (!file.counted) {
      file.counted = true;
      this.result.totalFiles += 1;
    }
    if (this.kept < this.options.keepLimit) {
      const kept = this.keepLine(file, line, true);
      if (kept) this.kept += 1;
    } else if (file.kept !== undefined) {
      file.kept = undefined; // context lines after an unkept match belong to it, not to a shown one
    }
    return this.result.totalMatches >= this.options.countLimit ? "stop" : "more";
  }

  private onContext(line: string): void {
    const file = this.current;
    if (file === undefined || file.blocked) return;
    // Until the keep limit, every context line may belong to a kept match; after it, only the
    // lines right after the last kept match in this file can.
    if (this.kept < this.options.keepLimit || file.kept !== undefined) this.keepLine(file, line, false);
  }

  private keepLine(file: CurrentFile, line: string, isMatch: boolean): boolean {
    const message = parseMessage(line);
    if (message === undefined) return false;
    const raw = decodeText(message.lines);
    const number = message.line_number;
    if (raw === undefined || typeof number !== "number") return false;
    const text = stripLineEnd(raw);
    const max = this.options.maxLineChars;
    const shown = cutAround(text, isMatch && text.length > max ? matchStart(raw, message.submatches) : 0, max);
    if (file.kept === undefined) {
      file.kept = { absolute: file.absolute, lines: [] };
      this.result.files.push(file.kept);
    }
    file.kept.lines.push({ number, text: shown, isMatch });
    return true;
  }
}

/** rg prints `"type"` first on every message but the summary; checking the prefix avoids parsing counted-only lines. */
function fastType(line: string): string | undefined {
  if (line.startsWith('{"type":"match"')) return "match";
  if (line.startsWith('{"type":"context"')) return "context";
  if (line.startsWith('{"type":"begin"')) return "begin";
  if (line.startsWith('{"type":"end"')) return "end";
  return undefined;
}

/** The slow path, for the summary and for any key order a future rg might print. */
function parsedType(line: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== "object" || parsed === null || !("type" in parsed)) return undefined;
    return typeof parsed.type === "string" ? parsed.type : undefined;
  } catch {
    return undefined;
  }
}

const BEGIN_PREFIX = '{"type":"begin","data":{"path":{"text":';
const BEGIN_SUFFIX = "}}}";

/** The path of a begin message; its usual shape is sliced out instead of parsing the whole line. */
function beginPath(line: string): string | undefined {
  if (line.startsWith(BEGIN_PREFIX) && line.endsWith(BEGIN_SUFFIX)) {
    try {
      const text: unknown = JSON.parse(line.slice(BEGIN_PREFIX.length, -BEGIN_SUFFIX.length));
      if (typeof text === "string") return text;
    } catch {
      // not the usual shape after all: parse the whole message below
    }
  }
  const message = parseMessage(line);
  return message === undefined ? undefined : decodeName(message.path);
}

/** A path rg sends as `{bytes}` (not UTF-8) decoded without loss, so the file can be opened by its exact name (see disk/byte-names.ts). */
function decodeName(value: unknown): string | undefined {
  if (typeof value === "object" && value !== null && "bytes" in value && typeof value.bytes === "string") return decodeNameBytes(Buffer.from(value.bytes, "base64"));
  return decodeText(value);
}

type RgData = { path?: unknown; lines?: unknown; line_number?: unknown; submatches?: unknown };

/** rg's JSON is trusted to be JSON, not to have any particular shape; a malformed line is skipped. */
function parseMessage(line: string): RgData | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || !("data" in parsed)) return undefined;
  const data = parsed.data;
  return typeof data === "object" && data !== null ? (data as RgData) : undefined;
}

/** rg sends `{text}` for UTF-8 and `{bytes}` (base64) for anything else. */
function decodeText(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if ("text" in value && typeof value.text === "string") return value.text;
  if ("bytes" in value && typeof value.bytes === "string") return Buffer.from(value.bytes, "base64").toString("utf8");
  return undefined;
}

function stripLineEnd(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  if (text.endsWith("\n")) return text.slice(0, -1);
  return text;
}

/** Where the first submatch starts, in characters (rg gives a byte offset). */
function matchStart(raw: string, submatches: unknown): number {
  if (!Array.isArray(submatches)) return 0;
  const first: unknown = submatches[0];
  if (typeof first !== "object" || first === null || !("start" in first) || typeof first.start !== "number") return 0;
  const bytes = first.start;
  if (Buffer.byteLength(raw) === raw.length) return bytes;
  return Buffer.from(raw).subarray(0, bytes).toString("utf8").length;
}

/** A window of `max` characters that shows `focus`, marked with … where text was cut. */
export function cutAround(text: string, focus: number, max: number): string {
  if (text.length <= max) return text;
  const start = Math.max(0, Math.min(focus - Math.floor(max / 4), text.length - max));
  const end = start + max;
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}
