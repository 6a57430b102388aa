/**
 * Calibrates the token estimate (packages/core/src/context/token-estimate.ts) against exact o200k
 * counts and writes its weights to token-estimate-weights.ts:
 *
 *   npx tsx bench/calibrate-token-estimate.ts
 *
 * Each piece the estimate's scanner finds in the calibration corpus (test/support/token-corpus.ts)
 * is encoded exactly. A weight is the mean exact cost of the pieces of its shape (an ASCII word of
 * n letters after a space, a run of n marks...); words with letters outside ASCII are fitted by
 * least squares on their letters per script. Every text counts alike, whatever its length. The
 * evaluation corpus, which the tests judge the estimate on, is not used.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { getEncoding } from "js-tiktoken";
import { CharClass, PieceKind, scanPieces } from "../packages/core/src/context/token-estimate.js";
import { repoRoot } from "../test/support/cairn-cli.js";
import { calibrationCorpus } from "../test/support/token-corpus.js";

const encoder = getEncoding("o200k_base");
const corpus = calibrationCorpus();
const MAX_WORD = 24;
const MAX_PUNCT = 12;
const MAX_SPACES = 16;

type Row = { x: number[]; y: number; w: number };
type Mean = { n: number; weight: number; sum: number };
const mean = (): Mean => ({ n: 0, weight: 0, sum: 0 });
let weight = 1;
const add = (m: Mean, value: number) => {
  m.n++;
  m.weight += weight;
  m.sum += weight * value;
};
const average = (m: Mean) => m.sum / m.weight;
const round = (v: number) => Math.round(v * 1000) / 1000;

// 1. Letter pairs that are common inside ASCII words the vocabulary holds whole: a word made of
// them is likely one token; a word with others (a hash, base64, a Polish word) costs more.
const pairCounts = new Float64Array(26 * 26);
for (const { text } of corpus) {
  for (const [word] of text.matchAll(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g)) {
    if (word.length < 3 || encoder.encode(` ${word}`).length !== 1) continue;
    const lower = word.toLowerCase();
    for (let i = 1; i < lower.length; i++) pairCounts[(lower.charCodeAt(i - 1) - 97) * 26 + lower.charCodeAt(i) - 97]! += 1;
  }
}
const total = pairCounts.reduce((s, v) => s + v, 0);
const commonPairs = new Uint8Array(Math.ceil((26 * 26) / 8));
for (let pair = 0; pair < 26 * 26; pair++) if (pairCounts[pair]! / total >= 0.0002) commonPairs[pair >> 3]! |= 1 << (pair & 7);
const oddPairs = (word: string) => {
  const lower = word.replace(/^[^A-Za-z]/, "").toLowerCase();
  let odd = 0;
  for (let i = 1; i < lower.length; i++) {
    const pair = (lower.charCodeAt(i - 1) - 97) * 26 + lower.charCodeAt(i) - 97;
    if ((commonPairs[pair >> 3]! & (1 << (pair & 7))) === 0) odd++;
  }
  return odd;
};

// 2. Mean exact cost of each piece shape.
const asciiWord = [0, 1, 2].map(() => Array.from({ length: MAX_WORD + 1 }, mean));
/** By the number of uncommon pairs (1, 2, 3 or more), then by letters. */
const oddWord = [1, 2, 3].map(() => Array.from({ length: MAX_WORD + 1 }, mean));
/** Long words: (letters, tokens), for a straight line where lengths are too rare to average. */
const longWords = [0, 1, 2, 3, 4, 5].map(() => [] as Row[]);
const punct = Array.from({ length: MAX_PUNCT + 1 }, mean);
const punctBeyond: Row[] = [];
const spaces = Array.from({ length: MAX_SPACES + 1 }, mean);
const newlines = mean();
const wordRows: Row[] = [];
const letterColumns = [CharClass.Lower, CharClass.Latin, CharClass.Cyrillic, CharClass.Han, CharClass.Kana, CharClass.Hangul, CharClass.OtherLetter];
const baseColumns = letterColumns.slice(1);

/** Letters outside ASCII in a Latin script, as a share of all Latin letters of the text. */
function accents(text: string): number {
  let ascii = 0;
  let accented = 0;
  scanPieces(text, (kind, size, _lead, facts) => {
    if (kind === PieceKind.AsciiWord) ascii += size;
    if (kind === PieceKind.Word) {
      ascii += facts.letters[CharClass.Lower]!;
      accented += facts.letters[CharClass.Latin]!;
    }
  });
  return accented === 0 ? 0 : accented / (accented + ascii);
}
const ACCENTED = 0.005;

for (const { text } of corpus) {
  weight = 1 / encoder.encode(text).length;
  // ASCII words are priced on texts in English (or code); accented languages get a factor below.
  const english = accents(text) < ACCENTED;
  scanPieces(text, (kind, size, lead, facts, start, end) => {
    const piece = text.slice(start, end);
    const exact = encoder.encode(piece).length;
    switch (kind) {
      case PieceKind.AsciiWord: {
        if (!english) break;
        const odd = Math.min(oddPairs(piece), 3);
        const table = odd > 0 ? oddWord[odd - 1]! : asciiWord[lead]!;
        if (size <= MAX_WORD) add(table[size]!, exact);
        if (size >= 8) longWords[odd > 0 ? 2 + odd : lead]!.push({ x: [1, size], y: exact, w: weight });
        break;
      }
      case PieceKind.Word: {
        // Counted here, not taken from the scanner, which reads the table this script writes.
        const rare = [...piece].filter((ch) => /[\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]/.test(ch) && encoder.encode(ch).length !== 1).length;
        const scripts = baseColumns.map((c) => (facts.script === c ? 1 : 0));
        wordRows.push({ x: [...scripts, rare, ...letterColumns.map((c) => facts.letters[c]!)], y: exact, w: weight });
        break;
      }
      case PieceKind.Punct:
        if (size <= MAX_PUNCT) add(punct[size]!, exact);
        else punctBeyond.push({ x: [size - MAX_PUNCT], y: exact, w: weight });
        break;
      case PieceKind.Spaces:
        add(spaces[Math.min(size, MAX_SPACES)]!, exact);
        break;
      case PieceKind.Newlines:
        add(newlines, exact);
        break;
      case PieceKind.Digits:
        break;
    }
  });
}

/** Weighted least squares on the columns that vary; the others get 0. */
function fit(rows: Row[]): number[] {
  const k = rows[0]!.x.length;
  const cols = Array.from({ length: k }, (_, j) => j).filter((j) => rows.some((r) => r.x[j] !== 0));
  const a = cols.map((i) => cols.map((j) => rows.reduce((s, r) => s + r.w * r.x[i]! * r.x[j]!, 0)));
  const b = cols.map((i) => rows.reduce((s, r) => s + r.w * r.x[i]! * r.y, 0));
  const m = cols.length;
  for (let p = 0; p < m; p++) {
    let best = p;
    for (let r = p + 1; r < m; r++) if (Math.abs(a[r]![p]!) > Math.abs(a[best]![p]!)) best = r;
    [a[p], a[best]] = [a[best]!, a[p]!];
    [b[p], b[best]] = [b[best]!, b[p]!];
    for (let r = p + 1; r < m; r++) {
      const f = a[r]![p]! / a[p]![p]!;
      for (let c = p; c < m; c++) a[r]![c]! -= f * a[p]![c]!;
      b[r]! -= f * b[p]!;
    }
  }
  const solved = new Array<number>(m).fill(0);
  for (let p = m - 1; p >= 0; p--) {
    let s = b[p]!;
    for (let c = p + 1; c < m; c++) s -= a[p]![c]! * solved[c]!;
    solved[p] = s / a[p]![p]!;
  }
  const out = new Array<number>(k).fill(0);
  cols.forEach((j, i) => (out[j] = round(solved[i]!)));
  return out;
}

const lines = longWords.map((rows) => fit(rows));
/** Means by length; lengths seen too rarely follow the straight line of long words. */
const table = (cells: Mean[], line: number[]) => cells.map((cell, size) => (size === 0 ? 0 : cell.n >= 20 ? round(average(cell)) : round(line[0]! + line[1]! * size)));
const asciiRows = asciiWord.map((cells, lead) => table(cells, lines[lead]!));
const oddRows = oddWord.map((cells, i) => table(cells, lines[3 + i]!));
const punctRow = punct.map((cell, size) => (size === 0 ? 0 : round(cell.n > 0 ? average(cell) : size)));
const punctSlope = round(punctBeyond.reduce((s, r) => s + r.w * (r.y - punctRow[MAX_PUNCT]!), 0) / punctBeyond.reduce((s, r) => s + r.w * r.x[0]!, 0));
const spaceRow = spaces.map((cell, size) => (size === 0 ? 0 : round(cell.n > 0 ? average(cell) : 1)));
// The factor for ASCII words in accented texts: (exact / estimated) - 1 = accentedText x accents.
const priceWord = (piece: string, size: number, lead: number) => {
  const odd = Math.min(oddPairs(piece), 3);
  const row = odd > 0 ? oddRows[odd - 1]! : asciiRows[lead]!;
  return size < row.length ? row[size]! : row[row.length - 1]! + (size - row.length + 1) * asciiWordSlope;
};
const asciiWordSlope = round(lines.reduce((s, l) => s + l[1]!, 0) / lines.length);
let num = 0;
let den = 0;
for (const { text } of corpus) {
  const share = accents(text);
  if (share < ACCENTED) continue;
  let exact = 0;
  let estimated = 0;
  scanPieces(text, (kind, size, lead, _facts, start, end) => {
    if (kind !== PieceKind.AsciiWord) return;
    const piece = text.slice(start, end);
    exact += encoder.encode(piece).length;
    estimated += priceWord(piece, size, lead);
  });
  num += (exact - estimated) * estimated * share;
  den += (estimated * share) ** 2;
}
const accentedText = round(num / den);

const wordFit = fit(wordRows);
const base = new Array<number>(CharClass.OtherLetter + 1).fill(0);
baseColumns.forEach((c, i) => (base[c] = wordFit[i]!));
const rare = wordFit[baseColumns.length]!;
const letters = new Array<number>(CharClass.OtherLetter + 1).fill(0);
letterColumns.forEach((c, i) => (letters[c] = wordFit[baseColumns.length + 1 + i]!));

// 3. One bit per CJK character: whether the vocabulary holds it as a token of its own.
const ranges: Array<[number, number, number]> = [];
let offset = 0;
for (const [from, to] of [
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xac00, 0xd7af],
] as const) {
  ranges.push([from, to, offset]);
  offset += to - from + 1;
}
const cjk = new Uint8Array(Math.ceil(offset / 8));
for (const [from, to, start] of ranges) {
  for (let code = from; code <= to; code++) {
    if (encoder.encode(String.fromCharCode(code)).length === 1) cjk[(start + code - from) >> 3]! |= 1 << ((start + code - from) & 7);
  }
}

const out = path.join(repoRoot, "packages/core/src/context/token-estimate-weights.ts");
writeFileSync(
  out,
  `// Written by bench/calibrate-token-estimate.ts from exact o200k counts of the calibration corpus
// (test/support/token-corpus.ts); run it again after changing the scanner. Do not edit by hand.

/** Mean tokens of each piece shape (see PieceKind in token-estimate.ts). */
export const estimateWeights = {
  /** ASCII words of common letter pairs, by lead (none, space, mark), then by number of letters. */
  asciiWord: [
${asciiRows.map((r) => `    [${r.join(", ")}],`).join("\n")}
  ],
  /** ASCII words with uncommon letter pairs (hashes, base64, other languages), by their number (1, 2, 3+), then by letters. */
  oddWord: [
${oddRows.map((r) => `    [${r.join(", ")}],`).join("\n")}
  ],
  /** Per letter past the longest word in the tables. */
  asciiWordSlope: ${asciiWordSlope},
  /** ASCII words cost (1 + this x the share of accented letters among the text's Latin letters). */
  accentedText: ${accentedText},
  /**
   * Words with letters outside ASCII: a constant by the script of the first such letter, a cost
   * per rare CJK character and per letter by script (both indexed by CharClass).
   */
  word: { base: [${base.join(", ")}], rare: ${rare}, letters: [${letters.join(", ")}] },
  /** By number of marks; past the table, a cost per further mark. */
  punct: [${punctRow.join(", ")}],
  punctSlope: ${punctSlope},
  newlines: ${round(average(newlines))},
  /** By number of spaces (the last entry for longer runs). */
  spaces: [${spaceRow.join(", ")}],
};

/** Letter pairs (26 x 26 bits, a-z by a-z) common inside whole-word tokens. */
export const commonBigrams = "${Buffer.from(commonPairs).toString("base64")}";

/** CJK characters the vocabulary holds as single tokens: one bit each over \`ranges\` ([from, to, first bit]). */
export const singleTokenCjk = {
  ranges: ${JSON.stringify(ranges)} as Array<[number, number, number]>,
  bits: "${Buffer.from(cjk).toString("base64")}",
};
`,
);
console.log(`wrote ${path.relative(repoRoot, out)}`);
