import { staticValue, type Word } from "./words.js";

function isProcessSubstitution(word: Word): boolean {
  const [only, ...rest] = word.pieces;
  return rest.length === 0 && only?.kind === "any" && /^[<>]\(/.test(only.source);
}

/** The options a wrapper command accepts before the command it runs. */
export type OptionSpec = {
  /** Short options without a value, e.g. "pvV". */
  flags?: string;
  /** Short options with a value, attached (-uroot) or in the next word (-u root). */
  withValue?: string;
  /** Short options whose value may only be attached (xargs -i[R]). */
  attachedValue?: string;
  long?: readonly string[];
  longWithValue?: readonly string[];
  /** Long options whose value may only follow `=` (xargs --replace[=R]). */
  longAttachedValue?: readonly string[];
  /** Also accept options written with `+` (sh +x). */
  plus?: boolean;
  /** Accept -NUMBER (nice -10). */
  numeric?: boolean;
};

export type ParsedOptions = { next: number; seen: Map<string, string> } | { problem: string };

/**
 * Reads options from `words[start]` up to the first operand (or after `--`). An option that
 * is computed at run time, or one the spec does not know, makes the command impossible to
 * follow: the caller must refuse it rather than guess where the inner command starts.
 */
export function parseOptions(words: readonly Word[], start: number, command: string, spec: OptionSpec): ParsedOptions {
  const seen = new Map<string, string>();
  let i = start;
  for (; i < words.length; i++) {
    const word = words[i];
    const value = staticValue(word);
    // <(…) becomes a /dev/fd path, never an option: it is the first operand.
    if (word !== undefined && isProcessSubstitution(word)) return { next: i, seen };
    if (value === undefined) {
      return { problem: `an argument of ${command} ("${word?.source ?? ""}") is computed at run time, so the command it runs cannot be known` };
    }
    if (value === "--") return { next: i + 1, seen };
    if (value.startsWith("--") && value.length > 2) {
      const eq = value.indexOf("=");
      const name = eq < 0 ? value : value.slice(0, eq);
      const attached = eq < 0 ? undefined : value.slice(eq + 1);
      if (spec.long?.includes(name) === true || spec.longAttachedValue?.includes(name) === true) {
        seen.set(name, attached ?? "");
        continue;
      }
      if (spec.longWithValue?.includes(name) === true) {
        if (attached !== undefined) {
          seen.set(name, attached);
          continue;
        }
        const next = staticValue(words[i + 1]);
        if (next === undefined) return { problem: `the value of ${command} ${name} is missing or computed at run time` };
        seen.set(name, next);
        i++;
        continue;
      }
      return { problem: `${command} option ${name} is not one Cairn knows, so the command it runs cannot be found` };
    }
    const isShort = value.length > 1 && (value.startsWith("-") || (spec.plus === true && value.startsWith("+")));
    if (!isShort) return { next: i, seen };
    if (spec.numeric === true && /^-\d+$/.test(value)) {
      seen.set("-n", value.slice(1));
      continue;
    }
    const consumed = readCluster(words, i, value, command, spec, seen);
    if (typeof consumed === "string") return { problem: consumed };
    i += consumed;
  }
  return { next: i, seen };
}

/** Reads one cluster such as -xec or -uroot; returns how many extra words it used, or a problem. */
function readCluster(words: readonly Word[], i: number, value: string, command: string, spec: OptionSpec, seen: Map<string, string>): number | string {
  const sign = value[0] ?? "-";
  for (let j = 1; j < value.length; j++) {
    const c = value[j] ?? "";
    const name = `${sign}${c}`;
    if (spec.flags?.includes(c) === true) {
      seen.set(name, "");
      continue;
    }
    if (spec.attachedValue?.includes(c) === true) {
      seen.set(name, value.slice(j + 1));
      return 0;
    }
    if (spec.withValue?.includes(c) === true) {
      const rest = value.slice(j + 1);
      if (rest !== "") {
        seen.set(name, rest);
        return 0;
      }
      const next = staticValue(words[i + 1]);
      if (next === undefined) return `the value of ${command} ${name} is missing or computed at run time`;
      seen.set(name, next);
      return 1;
    }
    return `${command} option ${name} is not one Cairn knows, so the command it runs cannot be found`;
  }
  return 0;
}
