import { lit, type Piece } from "./words.js";

/**
 * Quote removal as bash does it, one quoting context at a time. Results are pieces so that
 * pathname patterns in unquoted text become holes.
 */

/** Unquoted text: a backslash keeps the next character literally; `*`, `?` and `[…]` are patterns. */
export function decodeUnquoted(text: string): Piece[] {
  const chars = Array.from(text);
  const pieces: Piece[] = [];
  let literal = "";
  const flush = (): void => {
    if (literal !== "") pieces.push(lit(literal));
    literal = "";
  };
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] ?? "";
    if (c === "\\") {
      const next = chars[i + 1];
      if (next === undefined) literal += "\\";
      else if (next !== "\n") literal += next; // backslash-newline is a line continuation
      i++;
      continue;
    }
    if (c === "*" || c === "?") {
      flush();
      pieces.push({ kind: c === "*" ? "any" : "one", source: c });
      continue;
    }
    if (c === "[") {
      const close = closingBracket(chars, i);
      if (close !== undefined) {
        flush();
        pieces.push({ kind: "one", source: chars.slice(i, close + 1).join("") });
        i = close;
        continue;
      }
    }
    literal += c;
  }
  flush();
  return pieces;
}

// In a bracket expression a `]` right after `[`, `[!` or `[^` is a member, not the end.
function closingBracket(chars: string[], open: number): number | undefined {
  let i = open + 1;
  if (chars[i] === "!" || chars[i] === "^") i++;
  if (chars[i] === "]") i++;
  for (; i < chars.length; i++) {
    if (chars[i] === "\\") i++;
    else if (chars[i] === "]") return i;
  }
  return undefined;
}

/** Inside "…": a backslash only escapes $ ` " \ and newline. */
export function decodeDoubleQuoted(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "\\" && next !== undefined && "$`\"\\\n".includes(next)) {
      if (next !== "\n") out += next;
      i++;
      continue;
    }
    out += c;
  }
  return out;
}

const simpleEscapes: Record<string, string> = {
  a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v",
  "\\": "\\", "'": "'", '"': '"', "?": "?",
};

/** The body of $'…' (without `$'` and `'`). Bash stops the string at a NUL byte. */
export function decodeAnsiC(body: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? "";
    if (c !== "\\" || i + 1 >= body.length) {
      out += c;
      continue;
    }
    const e = body[i + 1] ?? "";
    const simple = simpleEscapes[e];
    if (simple !== undefined) {
      out += simple;
      i++;
      continue;
    }
    const numeric = numericEscape(body, i + 1);
    if (numeric !== undefined) {
      if (numeric.code === 0) return out;
      out += String.fromCodePoint(numeric.code);
      i = numeric.end - 1;
      continue;
    }
    if (e === "c" && i + 2 < body.length) {
      out += String.fromCharCode((body.charCodeAt(i + 2) & 0x1f) >>> 0);
      i += 2;
      continue;
    }
    out += c + e; // unknown escapes stay as written
    i++;
  }
  return out;
}

function numericEscape(body: string, at: number): { code: number; end: number } | undefined {
  const e = body[at] ?? "";
  const take = (start: number, max: number, digit: RegExp): string => {
    let s = "";
    while (s.length < max && start + s.length < body.length && digit.test(body[start + s.length] ?? "")) s += body[start + s.length];
    return s;
  };
  if (/[0-7]/.test(e)) {
    const digits = take(at, 3, /[0-7]/);
    return { code: parseInt(digits, 8) & 0xff, end: at + digits.length };
  }
  const hexLength = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
  if (hexLength === 0) return undefined;
  const digits = take(at + 1, hexLength, /[0-9a-fA-F]/);
  if (digits === "") return undefined;
  const code = parseInt(digits, 16);
  if (code > 0x10ffff) return undefined;
  return { code, end: at + 1 + digits.length };
}

/** The text between backquotes, as bash reads it before parsing it again: \$ \` \\ lose the backslash. */
export function unescapeBackquoted(text: string): string {
  return text.replace(/\\([$`\\])/g, "$1");
}
