/** Bad usage or configuration: the CLI prints the message on one line and exits with code 2. */
export class UsageError extends Error {
  override name = "UsageError";
  /** Known by this mark too, not by class alone: the web package's bundle has its own copy of the class. */
  readonly kind = "usage";
}

/** The CLI's own usage errors and core's SessionError (kind "usage"): one line, exit code 2. */
export function isUsageError(error: unknown): error is Error {
  return error instanceof UsageError || (error instanceof Error && (error as { kind?: unknown }).kind === "usage");
}

/**
 * A parser's error as one line of ours: an unknown flag names the nearest known one (a typo is the
 * usual cause), anything else keeps the parser's first line. `known`: the flags, without dashes.
 */
export function argumentError(error: unknown, known: readonly string[], helpCommand: string): UsageError {
  const message = (error as Error).message;
  const unknown = /^Unknown option '-{1,2}([^']+)'/.exec(message)?.[1];
  if (unknown === undefined) return new UsageError(`${message.split("\n")[0]} (see ${helpCommand} --help)`);
  if (unknown === "verbose") {
    // What people of other agents reach for: say what gives that detail here instead.
    return new UsageError(`unknown option --verbose; progress already goes to stderr step by step, --json prints every event (see ${helpCommand} --help)`);
  }
  const near = nearest(unknown, known);
  return new UsageError(near ? `unknown option --${unknown}; did you mean --${near}?` : `unknown option --${unknown}; ${helpCommand} --help lists the options`);
}

/** The known word closest to a typo, if it is close enough to be what was meant. */
function nearest(word: string, known: readonly string[]): string | undefined {
  // On a tie, the one with the same letters wins: --modle is --model with two keys swapped, not --mode.
  const letters = (text: string) => [...text].sort().join("");
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(word, name);
    if (!best || distance < best.distance || (distance === best.distance && letters(name) === letters(word))) best = { name, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(best.name.length / 3)) ? best.name : undefined;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
