/**
 * How options are recognised wherever a check looks for one. GNU getopt_long and git's
 * parse-options accept any unambiguous prefix of a long option (`rm --rec`, `git reset --ha`),
 * and an ambiguous prefix is an error, so a prefix of a risky option counts as that option.
 * Where an option makes a command safer (`git clean --dry-run`), only the exact spelling counts.
 */

/** `arg` (with any `=value`) names `long`, exactly or as an abbreviation. */
export function isLongPrefixOf(arg: string, long: string): boolean {
  const eq = arg.indexOf("=");
  const name = eq < 0 ? arg : arg.slice(0, eq);
  return name.length > 2 && name.startsWith("--") && long.startsWith(name);
}

/** Whether a short-option cluster (-rf) or a long option (--force, --for, --force=…) is present, before `--`. */
export function hasOption(args: readonly (string | undefined)[], short: string, long: readonly string[] = []): boolean {
  return findOption(args, short, (arg) => long.some((l) => isLongPrefixOf(arg, l)));
}

/** As hasOption, but a long option must be spelled in full: for options that make a command safer. */
export function hasExactOption(args: readonly (string | undefined)[], short: string, long: readonly string[] = []): boolean {
  return findOption(args, short, (arg) => long.some((l) => arg === l || arg.startsWith(`${l}=`)));
}

function findOption(args: readonly (string | undefined)[], short: string, matchesLong: (arg: string) => boolean): boolean {
  for (const arg of args) {
    if (arg === undefined) continue;
    if (arg === "--") return false;
    if (arg.startsWith("--")) {
      if (matchesLong(arg)) return true;
    } else if (arg.startsWith("-") && [...arg.slice(1)].some((c) => short.includes(c))) return true;
  }
  return false;
}

/**
 * Whether a short-option cluster holds `letter` as an option: letters in `valueLetters` take the
 * rest of the cluster as their value, so `-Oe.html` is not `-e` when O takes a value.
 */
export function clusterHas(arg: string, letter: string, valueLetters: string): boolean {
  if (!arg.startsWith("-") || arg.startsWith("--")) return false;
  for (const c of arg.slice(1)) {
    if (c === letter) return true;
    if (valueLetters.includes(c)) return false;
  }
  return false;
}

/** Arguments that are not options (everything after `--`), with their index in args. */
export function operands(args: readonly (string | undefined)[], withValue: readonly string[] = []): { value: string | undefined; index: number }[] {
  const out: { value: string | undefined; index: number }[] = [];
  let optionsDone = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!optionsDone && arg === "--") {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && arg !== undefined && arg.startsWith("-") && arg !== "-") {
      if (withValue.includes(arg)) i++;
      continue;
    }
    out.push({ value: arg, index: i });
  }
  return out;
}
