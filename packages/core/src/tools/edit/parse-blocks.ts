/**
 * SEARCH/REPLACE blocks in Cline's format, parsed one line at a time so a streamed diff is read once.
 *
 *   ------- SEARCH          (3+ '-', or legacy 3+ '<'; an optional '>' after SEARCH)
 *   [lines to find]
 *   =======                 (3+ '=')
 *   [lines to put instead]
 *   +++++++ REPLACE         (3+ '+', or legacy 3+ '>'; may be missing at the very end)
 *
 * Trailing spaces after a marker are tolerated (the intent is plain); anything else that looks like
 * a marker but is not one is an error naming the line and what is wrong with it.
 */

export type DiffBlock = {
  /** 1-based position of the block in the diff. */
  index: number;
  search: string[];
  replace: string[];
  /** Diff line (1-based) of the SEARCH marker. */
  line: number;
};

export type ParseFailure = { line: number; message: string };

export const EXPECTED_FORMAT = `Each block must look like this (one or more blocks, markers alone on their lines):
------- SEARCH
[exact lines from the current file]
=======
[the lines to put in their place]
+++++++ REPLACE`;

const SEARCH_MARKER = /^(?:-{3,}|<{3,}) SEARCH>?$/;
const SEPARATOR = /^={3,}$/;
const REPLACE_MARKER = /^(?:\+{3,}|>{3,}) REPLACE>?$/;
/** A line that is meant as a marker: marker characters and the keyword, however badly spaced or spelled. */
const MARKER_LIKE = /^(\s*)([-<+>=]+)([ \t]*)(search|replace)([<>:]*)$/i;
const FENCE = /^\s*```/;

type State = "outside" | "search" | "replace";

export class BlockParser {
  private pending = "";
  private lineNumber = 0;
  private state: State = "outside";
  private search: string[] = [];
  private replace: string[] = [];
  private openedAt = 0;
  private separatorAt = 0;
  private lastClosedAt = 0;
  private blockCount = 0;
  /** A line in the current SEARCH that looks like a mistyped separator, to name if REPLACE comes first. */
  private suspectSeparator: { line: number; text: string } | undefined;
  private failure: ParseFailure | undefined;
  private ended = false;

  /** The first format error; once set, the parser ignores further input. */
  get error(): ParseFailure | undefined {
    return this.failure;
  }

  get blocks(): number {
    return this.blockCount;
  }

  /** Feeds more of the diff; returns the blocks completed by it. */
  push(chunk: string): DiffBlock[] {
    const done: DiffBlock[] = [];
    if (this.failure !== undefined || this.ended) return done;
    let from = 0;
    for (let nl = chunk.indexOf("\n"); nl !== -1; nl = chunk.indexOf("\n", from)) {
      const line = this.pending + chunk.slice(from, nl);
      this.pending = "";
      from = nl + 1;
      this.takeLine(line, done);
      if (this.failure !== undefined) return done;
    }
    this.pending += chunk.slice(from);
    return done;
  }

  /** The diff is complete: reads the last line and accepts a final block whose REPLACE marker is missing. */
  end(): DiffBlock[] {
    const done: DiffBlock[] = [];
    if (this.failure !== undefined || this.ended) return done;
    this.ended = true;
    if (this.pending !== "") {
      this.takeLine(this.pending, done);
      this.pending = "";
      if (this.failure !== undefined) return done;
    }
    if (this.state === "search") {
      this.fail(
        this.openedAt,
        `block ${this.blockCount + 1} (SEARCH marker on line ${this.openedAt}) ends before its ======= line, so it has no REPLACE part.`,
      );
    } else if (this.state === "replace") {
      // Models often stop right after the last REPLACE text; trailing blank lines there are framing.
      while (this.replace.length > 0 && (this.replace[this.replace.length - 1] ?? "").trim() === "") this.replace.pop();
      done.push(this.close());
    } else if (this.blockCount === 0) {
      this.fail(0, "the diff holds no SEARCH/REPLACE block.");
    }
    return done;
  }

  private takeLine(raw: string, done: DiffBlock[]): void {
    this.lineNumber += 1;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const marker = line.replace(/[ \t]+$/, "");
    const n = this.lineNumber;

    if (SEARCH_MARKER.test(marker)) {
      if (this.state === "search") {
        return this.fail(n, `SEARCH marker inside the SEARCH part of block ${this.blockCount + 1}, which opened on line ${this.openedAt} and has no ======= line yet.`);
      }
      if (this.state === "replace") {
        return this.fail(n, `block ${this.blockCount + 1} has no REPLACE marker (+++++++ REPLACE) before the next SEARCH marker on line ${n}. Close every block with its own REPLACE marker.`);
      }
      this.state = "search";
      this.openedAt = n;
      this.search = [];
      this.replace = [];
      this.suspectSeparator = undefined;
      return;
    }
    if (SEPARATOR.test(marker)) {
      if (this.state === "search") {
        this.state = "replace";
        this.separatorAt = n;
        return;
      }
      if (this.state === "replace") {
        return this.fail(n, `a second ======= line in block ${this.blockCount + 1} (the first is on line ${this.separatorAt}). A line of only '=' characters always separates SEARCH from REPLACE, so it cannot be content inside a block.`);
      }
      return this.fail(n, `======= line outside a block: there is no open SEARCH marker before it.`);
    }
    if (REPLACE_MARKER.test(marker)) {
      if (this.state === "replace") {
        done.push(this.close());
        return;
      }
      if (this.state === "search") {
        const hint = this.suspectSeparator
          ? ` Line ${this.suspectSeparator.line} ("${this.suspectSeparator.text}") looks like a separator, but a separator is 3 or more '=' alone on the line, with nothing before them.`
          : "";
        return this.fail(n, `REPLACE marker before the ======= line in block ${this.blockCount + 1} (SEARCH marker on line ${this.openedAt}).${hint}`);
      }
      if (this.blockCount > 0) {
        return this.fail(n, `REPLACE marker outside a block: block ${this.blockCount} was already closed by the REPLACE marker on line ${this.lastClosedAt}.`);
      }
      return this.fail(n, `REPLACE marker outside a block: there is no SEARCH marker before it.`);
    }
    const malformed = diagnoseMarker(marker);
    if (malformed !== undefined) return this.fail(n, `line ${n} ("${line}") ${malformed}`);

    if (this.state === "search") {
      if (/^\s*=+\s*$/.test(line)) this.suspectSeparator = { line: n, text: line };
      this.search.push(line);
      return;
    }
    if (this.state === "replace") {
      this.replace.push(line);
      return;
    }
    if (line.trim() === "" || FENCE.test(line)) return;
    this.fail(n, `line ${n} ("${truncate(line)}") is outside any block. Put only SEARCH/REPLACE blocks in the diff, with no other text.`);
  }

  private close(): DiffBlock {
    this.blockCount += 1;
    this.lastClosedAt = this.lineNumber;
    this.state = "outside";
    const block = { index: this.blockCount, search: this.search, replace: this.replace, line: this.openedAt };
    this.search = [];
    this.replace = [];
    return block;
  }

  private fail(line: number, message: string): void {
    this.failure = { line, message };
  }
}

/** Parses a whole diff at once. */
export function parseBlocks(diff: string): { blocks: DiffBlock[]; error?: ParseFailure } {
  const parser = new BlockParser();
  const blocks = [...parser.push(diff), ...parser.end()];
  return parser.error === undefined ? { blocks } : { blocks, error: parser.error };
}

/** Says what is wrong with a line that looks like a marker and is not one, or undefined if it is not marker-like. */
function diagnoseMarker(line: string): string | undefined {
  const m = MARKER_LIKE.exec(line);
  if (m === null) return undefined;
  const [, indent = "", chars = "", space = "", word = "", suffix = ""] = m;
  const keyword = word.toUpperCase();
  // "--search" in a shell script is content; a marker attempt has capitals or a full run of marker characters.
  if (word !== keyword && chars.length < 3) return undefined;
  const isSearch = keyword === "SEARCH";
  const expected = isSearch ? "------- SEARCH" : "+++++++ REPLACE";
  const allowed = isSearch ? "'-' (or legacy '<')" : "'+' (or legacy '>')";
  const problem = ((): string => {
    if (indent !== "") return "starts with whitespace; a marker must start at the beginning of the line";
    const kind = chars[0] ?? "";
    const sameChar = [...chars].every((c) => c === kind);
    const rightChar = isSearch ? kind === "-" || kind === "<" : kind === "+" || kind === ">";
    if (!sameChar || !rightChar) return `uses the characters "${chars}"; a ${keyword} marker is made of ${allowed} only`;
    if (chars.length < 3) return `has only ${chars.length} '${kind}' character${chars.length === 1 ? "" : "s"}; a marker needs at least 3`;
    if (space === "") return `has no space between "${chars}" and ${word}; put exactly one space there`;
    if (space !== " ") return `needs exactly one space between "${chars}" and ${word}`;
    if (word !== keyword) return `must spell ${keyword} in capitals`;
    if (suffix !== "" && suffix !== ">") return `has extra characters "${suffix}" after ${keyword}`;
    return "is not a valid marker";
  })();
  return `looks like a ${keyword} marker but ${problem}. Write it exactly as "${expected}".`;
}

function truncate(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
