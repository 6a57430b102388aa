import { commonBigrams, estimateWeights, singleTokenCjk } from "./token-estimate-weights.js";

/**
 * A fast estimate of the tokens a text costs, without a tokenizer (issue 13: loading the exact
 * one costs more than the rest of a run). It splits the text the way o200k's pre-tokenizer does
 * (words with their leading space or mark, case changes inside identifiers, runs of digits,
 * punctuation and whitespace) and prices each piece by its shape and script, from weights
 * calibrated against exact counts (bench/calibrate-token-estimate.ts). Within a few percent on
 * code, prose, JSON and non-Latin text (context/token-estimate.test.ts), at a fraction of the cost.
 */

/** What a character is to the pre-tokenizer. Letters outside ASCII carry their script. */
export const enum CharClass {
  Lower,
  Upper,
  Digit,
  Newline,
  Space,
  Punct,
  Latin,
  Cyrillic,
  Han,
  Kana,
  Hangul,
  OtherLetter,
}

/** The kinds of piece the scanner reports. */
export const enum PieceKind {
  /** ASCII letters: `size` letters, `lead` 0 none, 1 a space, 2 a punctuation mark. */
  AsciiWord,
  /** Letters with at least one outside ASCII: `size` letters (see WordFacts for their scripts). */
  Word,
  Digits,
  /** A run of punctuation or symbols (`size` characters), with a space before it or not. */
  Punct,
  /** Whitespace ending in line breaks (`size` characters). */
  Newlines,
  /** Spaces or tabs (`size` characters). */
  Spaces,
}

/** What the letters of the last word were, by script (indexed by CharClass; Lower counts ASCII). */
export type WordFacts = {
  letters: Int32Array;
  /** The script of the first letter outside ASCII. */
  script: CharClass;
  /** CJK characters the vocabulary has no token of their own for. */
  rare: number;
  /** Pairs of adjacent ASCII letters that are uncommon in words the vocabulary holds whole. */
  odd: number;
};

export type PieceVisitor = (kind: PieceKind, size: number, lead: number, facts: WordFacts, start: number, end: number) => void;

const classes = buildClasses();

function buildClasses(): Uint8Array {
  const table = new Uint8Array(65536).fill(CharClass.OtherLetter);
  const set = (from: number, to: number, value: CharClass) => table.fill(value, from, to + 1);
  set(0x00, 0x7f, CharClass.Punct);
  set(0x61, 0x7a, CharClass.Lower);
  set(0x41, 0x5a, CharClass.Upper);
  set(0x30, 0x39, CharClass.Digit);
  for (const c of [0x09, 0x0b, 0x0c, 0x20, 0xa0, 0x3000]) table[c] = CharClass.Space;
  table[0x0a] = CharClass.Newline;
  table[0x0d] = CharClass.Newline;
  set(0x80, 0xbf, CharClass.Punct);
  table[0xa0] = CharClass.Space;
  set(0xc0, 0x36f, CharClass.Latin); // Latin-1 letters, Latin Extended, IPA, combining marks
  table[0xd7] = CharClass.Punct; // ×
  table[0xf7] = CharClass.Punct; // ÷
  set(0x370, 0x52f, CharClass.Cyrillic); // Greek and Cyrillic: alphabets priced alike
  set(0x1e00, 0x1eff, CharClass.Latin); // Vietnamese and other extended Latin
  set(0x2000, 0x2bff, CharClass.Punct); // general punctuation, arrows, maths, box drawing, symbols
  set(0x2e80, 0x2fdf, CharClass.Han);
  set(0x3000, 0x303f, CharClass.Punct);
  table[0x3000] = CharClass.Space;
  set(0x3040, 0x30ff, CharClass.Kana);
  set(0x3100, 0x31ff, CharClass.Han);
  set(0x3130, 0x318f, CharClass.Hangul);
  set(0x3400, 0x4dbf, CharClass.Han);
  set(0x4e00, 0x9fff, CharClass.Han);
  set(0x1100, 0x11ff, CharClass.Hangul);
  set(0xac00, 0xd7af, CharClass.Hangul);
  set(0xd800, 0xdfff, CharClass.Punct); // surrogate pairs: mostly emoji
  set(0xf900, 0xfaff, CharClass.Han);
  set(0xfe00, 0xfe6f, CharClass.Punct);
  set(0xff00, 0xffef, CharClass.Punct); // full-width forms
  set(0xfff0, 0xffff, CharClass.Punct);
  return table;
}

let singleToken: Uint8Array | undefined;

/** Whether a CJK character (a Han ideograph or a Hangul syllable) is one token of its own. */
function isSingleToken(code: number): boolean {
  singleToken ??= Buffer.from(singleTokenCjk.bits, "base64");
  for (const [from, to, offset] of singleTokenCjk.ranges) {
    if (code >= from && code <= to) {
      const bit = offset + code - from;
      return (singleToken[bit >> 3]! & (1 << (bit & 7))) !== 0;
    }
  }
  return true; // kana and the rest: the vocabulary has them all
}

let bigrams: Uint8Array | undefined;

/** Whether two ASCII letters (0-25 each) often follow each other inside whole-word tokens. */
function isCommonBigram(a: number, b: number): boolean {
  bigrams ??= Buffer.from(commonBigrams, "base64");
  const bit = a * 26 + b;
  return (bigrams[bit >> 3]! & (1 << (bit & 7))) !== 0;
}

function isLetter(c: number): boolean {
  return c === CharClass.Lower || c === CharClass.Upper || c >= CharClass.Latin;
}

/** Splits `text` into the pieces o200k's pre-tokenizer would, closely enough to price them. */
export function scanPieces(text: string, visit: PieceVisitor): void {
  const n = text.length;
  const at = (i: number) => classes[text.charCodeAt(i)]!;
  const facts: WordFacts = { letters: new Int32Array(CharClass.OtherLetter + 1), script: CharClass.Lower, rare: 0, odd: 0 };

  // A word from `letters` on; `start` is where its lead (a space or a mark) begins.
  const word = (start: number, letters: number, lead: number): number => {
    facts.letters.fill(0);
    facts.rare = 0;
    facts.odd = 0;
    let j = letters;
    let previous = -1; // the last ASCII letter, 0-25
    let other = 0;
    // Upper* then lower+ (letters outside ASCII count as lower): a new word starts where a
    // capital follows a small letter, as in camelCase.
    let upper = true;
    while (j < n) {
      const code = text.charCodeAt(j);
      const c = classes[code]!;
      if (c === CharClass.Upper ? !upper : c !== CharClass.Lower && c < CharClass.Latin) break;
      if (c !== CharClass.Upper) upper = false;
      if (c <= CharClass.Upper) {
        const letter = (code | 0x20) - 0x61;
        if (previous >= 0 && !isCommonBigram(previous, letter)) facts.odd++;
        previous = letter;
        facts.letters[CharClass.Lower]!++;
      } else {
        previous = -1;
        if (other === 0) facts.script = c;
        other++;
        facts.letters[c]!++;
        if (c >= CharClass.Han && c <= CharClass.Hangul && !isSingleToken(code)) facts.rare++;
      }
      j++;
    }
    visit(other === 0 ? PieceKind.AsciiWord : PieceKind.Word, j - letters, lead, facts, start, j);
    return j;
  };

  // Marks from `marks` on, then any line breaks; `start` includes a space before them.
  const punct = (start: number, marks: number): number => {
    let j = marks;
    while (j < n && at(j) === CharClass.Punct) j++;
    const size = j - marks;
    while (j < n && at(j) === CharClass.Newline) j++;
    visit(PieceKind.Punct, size, marks - start, facts, start, j);
    return j;
  };

  let i = 0;
  while (i < n) {
    const c = at(i);
    if (isLetter(c)) {
      i = word(i, i, 0);
    } else if (c === CharClass.Digit) {
      let j = i;
      while (j < n && at(j) === CharClass.Digit) j++;
      for (let k = i; k < j; k += 3) visit(PieceKind.Digits, Math.min(3, j - k), 0, facts, k, Math.min(k + 3, j));
      i = j;
    } else if (c === CharClass.Space || c === CharClass.Newline) {
      let j = i;
      let lastBreak = -1;
      for (; j < n; j++) {
        const w = at(j);
        if (w === CharClass.Newline) lastBreak = j;
        else if (w !== CharClass.Space) break;
      }
      if (lastBreak >= 0) {
        visit(PieceKind.Newlines, lastBreak + 1 - i, 0, facts, i, lastBreak + 1);
        i = lastBreak + 1;
        if (i === j) continue;
      }
      // Spaces: the last one goes with the word or marks after it.
      const next = j < n ? at(j) : CharClass.Space;
      const joins = j < n && (isLetter(next) || next === CharClass.Punct);
      const alone = joins ? j - 1 - i : j - i;
      if (alone > 0) visit(PieceKind.Spaces, alone, 0, facts, i, i + alone);
      if (!joins) i = j;
      else if (isLetter(next)) i = word(j - 1, j, 1);
      else i = punct(j - 1, j);
    } else if (i + 1 < n && isLetter(at(i + 1))) {
      i = word(i, i + 1, 2);
    } else {
      i = punct(i, i);
    }
  }
}

/**
 * Estimated o200k tokens of `text`. ASCII words cost more in a text whose other words carry
 * accents (Polish, Czech, Turkish): the vocabulary knows fewer of that language's words whole.
 */
export function estimateTextTokens(text: string): number {
  if (text.length === 0) return 0;
  const w = estimateWeights;
  let total = 0;
  let asciiWords = 0;
  let asciiLetters = 0;
  let accented = 0;
  scanPieces(text, (kind, size, lead, facts) => {
    switch (kind) {
      case PieceKind.AsciiWord: {
        const row = facts.odd === 0 ? w.asciiWord[lead]! : w.oddWord[Math.min(facts.odd, 3) - 1]!;
        asciiWords += size < row.length ? row[size]! : row[row.length - 1]! + (size - row.length + 1) * w.asciiWordSlope;
        asciiLetters += size;
        break;
      }
      case PieceKind.Word: {
        let cost = w.word.base[facts.script]! + w.word.rare * facts.rare;
        for (let c = 0; c < facts.letters.length; c++) cost += w.word.letters[c]! * facts.letters[c]!;
        total += cost;
        asciiLetters += facts.letters[CharClass.Lower]!;
        accented += facts.letters[CharClass.Latin]!;
        break;
      }
      case PieceKind.Digits:
        total += 1;
        break;
      case PieceKind.Punct:
        total += size < w.punct.length ? w.punct[size]! : w.punct[w.punct.length - 1]! + (size - w.punct.length + 1) * w.punctSlope;
        break;
      case PieceKind.Newlines:
        total += w.newlines;
        break;
      case PieceKind.Spaces:
        total += size < w.spaces.length ? w.spaces[size]! : w.spaces[w.spaces.length - 1]!;
        break;
    }
  });
  const accents = accented === 0 ? 0 : accented / (accented + asciiLetters);
  return Math.max(1, Math.round(total + asciiWords * (1 + w.accentedText * accents)));
}
