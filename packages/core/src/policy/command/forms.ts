import type { Segment } from "./segments.js";
import { basenameWord, displayWords, joinWords, lit, type Piece, type Word } from "./words.js";

/** The segment as a person reads it: assignments and words, quotes removed, holes as written. */
export function segmentText(segment: Segment): string {
  return displayWords([...segment.assignments, ...segment.words]);
}

/** The spelling allow rules must match: assignments and words as written. */
export function allowForm(segment: Segment): Piece[] {
  return joinWords([...segment.assignments, ...segment.words]);
}

/**
 * Deny rules are matched against several spellings of a segment so that `FOO=1 /bin/RM -rf /`
 * is caught by `rm -rf *`: with and without leading assignments, with the command name as
 * written and as its basename, and with the name lowercased (case-insensitive file systems).
 */
export function denyForms(segment: Segment): Piece[][] {
  const [name, ...rest] = segment.words;
  const names: Word[] = name === undefined ? [] : [name, basenameWord(name)];
  for (const n of [...names]) names.push(lowercase(n));
  const prefixes = segment.assignments.length > 0 && name !== undefined ? [segment.assignments, []] : [segment.assignments];
  const forms: Piece[][] = [];
  for (const prefix of prefixes) {
    if (names.length === 0) forms.push(joinWords(prefix));
    for (const n of names) forms.push(joinWords([...prefix, n, ...rest]));
  }
  return forms;
}

function lowercase(word: Word): Word {
  return { pieces: word.pieces.map((p) => (p.kind === "lit" ? lit(p.text.toLowerCase()) : p)), source: word.source };
}
