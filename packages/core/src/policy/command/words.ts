/**
 * A shell word after quote removal, as a list of pieces. Literal text is known; a hole is text
 * the shell computes when the command runs (an expansion, a substitution, a pathname pattern),
 * so a rule must hold for every value the hole may take.
 */
export type Piece =
  | { kind: "lit"; text: string }
  /** Any string, spaces included: $VAR, ${…}, $(…), `*`, a brace expansion, xargs' appended arguments. */
  | { kind: "any"; source: string }
  /** Exactly one character: `?` or a bracket expression such as [abc]. */
  | { kind: "one"; source: string };

export type Word = { pieces: Piece[]; source: string };

export function lit(text: string): Piece {
  return { kind: "lit", text };
}

export function literalWord(text: string): Word {
  return { pieces: [lit(text)], source: text };
}

export function anyWord(source: string): Word {
  return { pieces: [{ kind: "any", source }], source };
}

/** The word's value when it has no holes. */
export function staticValue(word: Word | undefined): string | undefined {
  if (word === undefined) return undefined;
  let out = "";
  for (const piece of word.pieces) {
    if (piece.kind !== "lit") return undefined;
    out += piece.text;
  }
  return out;
}

/** How the word reads to a person: literal text as the shell sees it, holes as written. */
export function displayWord(word: Word): string {
  return word.pieces.map((p) => (p.kind === "lit" ? p.text : p.source)).join("");
}

/** The words joined with single spaces, as rules see them. */
export function joinWords(words: readonly Word[]): Piece[] {
  const pieces: Piece[] = [];
  words.forEach((word, i) => {
    if (i > 0) pieces.push(lit(" "));
    pieces.push(...word.pieces);
  });
  return pieces;
}

export function displayWords(words: readonly Word[]): string {
  return words.map(displayWord).join(" ");
}

/** The word without its directory part: `/bin/rm` → `rm`. Holes before the last `/` are dropped too. */
export function basenameWord(word: Word): Word {
  for (let i = word.pieces.length - 1; i >= 0; i--) {
    const piece = word.pieces[i];
    if (piece?.kind !== "lit") continue;
    const slash = piece.text.lastIndexOf("/");
    if (slash < 0) continue;
    const rest = piece.text.slice(slash + 1);
    const pieces = [...(rest === "" ? [] : [lit(rest)]), ...word.pieces.slice(i + 1)];
    return { pieces, source: word.source };
  }
  return word;
}

/** Replaces every occurrence of `marker` in literal text with a hole (xargs -I, find's {}). */
export function replaceWithHole(word: Word, marker: string, source: string): Word {
  const pieces: Piece[] = [];
  for (const piece of word.pieces) {
    if (piece.kind !== "lit" || marker === "" || !piece.text.includes(marker)) {
      pieces.push(piece);
      continue;
    }
    piece.text.split(marker).forEach((part, i) => {
      if (i > 0) pieces.push({ kind: "any", source });
      if (part !== "") pieces.push(lit(part));
    });
  }
  return { pieces, source: word.source };
}
