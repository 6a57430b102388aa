/**
 * When a SEARCH matched lines whose indentation differs from what the model wrote, the model's
 * REPLACE is indented the model's way too. This carries the difference over: from each pair of
 * (SEARCH line, matched file line) it learns how the model's indentation maps to the file's, and
 * rewrites the indentation of every REPLACE line the same way. Blank lines are left as they are.
 *
 * Two shapes of difference are recognised:
 * - a shift: the file has the same relative indentation with a prefix added or removed
 *   (SEARCH at column 0, file inside a class: every REPLACE line gets the class's indentation);
 * - a re-scaling: each model indentation maps to one file indentation (2 vs 4 spaces, spaces vs tabs);
 *   a REPLACE indentation not seen in SEARCH is converted level by level with the learnt unit.
 * When neither fits (the model's relative indentation is inconsistent), the shift of the first line is used.
 */
export function reindent(search: readonly string[], matched: readonly string[], replace: readonly string[]): string[] {
  const pairs: Array<[string, string]> = [];
  search.forEach((line, i) => {
    const fileLine = matched[i] ?? "";
    if (line.trim() !== "" && fileLine.trim() !== "") pairs.push([indentOf(line), indentOf(fileLine)]);
  });
  const [firstPair] = pairs;
  if (firstPair === undefined || pairs.every(([s, f]) => s === f)) return [...replace];

  const map = shiftFits(pairs) ?? scaleFits(pairs) ?? shift(firstPair);
  return replace.map((line) => {
    if (line.trim() === "") return line;
    const indent = indentOf(line);
    return map(indent) + line.slice(indent.length);
  });
}

type IndentMap = (indent: string) => string;

function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? "";
}

/** Removes `from` and puts `to` in its place; an indentation shallower than `from` loses what it shares with it. */
function shift([modelIndent, fileIndent]: [string, string]): IndentMap {
  const { from, to } = shiftOf(modelIndent, fileIndent);
  return (indent) => to + indent.slice(indent.startsWith(from) ? from.length : commonPrefixLength(indent, from));
}

/** The prefix swap that turns one indentation into the other, keeping their common tail (the deepest part). */
function shiftOf(modelIndent: string, fileIndent: string): { from: string; to: string } {
  const common = commonSuffixLength(modelIndent, fileIndent);
  return { from: modelIndent.slice(0, modelIndent.length - common), to: fileIndent.slice(0, fileIndent.length - common) };
}

/** The first pair's shift, if every pair is the same shift. */
function shiftFits(pairs: ReadonlyArray<[string, string]>): IndentMap | undefined {
  const [first] = pairs;
  if (first === undefined) return undefined;
  const { from } = shiftOf(...first);
  const map = shift(first);
  return pairs.every(([s, f]) => s.startsWith(from) && map(s) === f) ? map : undefined;
}

/** One file indentation per model indentation, plus the size of one level on each side for unseen depths. */
function scaleFits(pairs: ReadonlyArray<[string, string]>): IndentMap | undefined {
  const table = new Map<string, string>();
  for (const [s, f] of pairs) {
    const known = table.get(s);
    if (known !== undefined && known !== f) return undefined;
    table.set(s, f);
  }
  const keys = [...table.keys()].sort((a, b) => a.length - b.length);
  let unit: { model: string; file: string } | undefined;
  for (let i = 0; i < keys.length && unit === undefined; i++) {
    for (let j = i + 1; j < keys.length && unit === undefined; j++) {
      const [shorter = "", longer = ""] = [keys[i], keys[j]];
      const [fileShorter = "", fileLonger = ""] = [table.get(shorter), table.get(longer)];
      if (longer.startsWith(shorter) && fileLonger.startsWith(fileShorter) && fileLonger.length > fileShorter.length) {
        unit = { model: longer.slice(shorter.length), file: fileLonger.slice(fileShorter.length) };
      }
    }
  }
  const fallback = pairs[0] === undefined ? undefined : shift(pairs[0]);
  return (indent) => {
    const direct = table.get(indent);
    if (direct !== undefined) return direct;
    if (unit !== undefined) {
      for (const key of keys.slice().reverse()) {
        const levels = indent.startsWith(key) ? repeats(indent.slice(key.length), unit.model) : undefined;
        if (levels !== undefined) return (table.get(key) ?? "") + unit.file.repeat(levels);
      }
      for (const key of keys) {
        const levels = key.startsWith(indent) ? repeats(key.slice(indent.length), unit.model) : undefined;
        const mapped = table.get(key) ?? "";
        const cut = levels === undefined ? -1 : mapped.length - unit.file.length * levels;
        if (levels !== undefined && cut >= 0 && mapped.slice(cut) === unit.file.repeat(levels)) return mapped.slice(0, cut);
      }
    }
    return fallback === undefined ? indent : fallback(indent);
  };
}

/** How many times `unit` repeats to make `text`, or undefined if it does not. */
function repeats(text: string, unit: string): number | undefined {
  if (unit === "" || text.length % unit.length !== 0) return undefined;
  const count = text.length / unit.length;
  return unit.repeat(count) === text ? count : undefined;
}

function commonSuffixLength(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n += 1;
  return n;
}

function commonPrefixLength(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n += 1;
  return n;
}
