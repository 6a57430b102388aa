import { UsageError } from "@cairn/host/usage-error";

/**
 * Takes the fleet's own `--name value` (or `--name=value`) flags out of an argument list and leaves
 * the rest, in order, for the run-options parser. Stops at `--`: what follows is the task.
 */
export function takeFlags(argv: readonly string[], names: readonly string[]): { values: Record<string, string | undefined>; rest: string[] } {
  const values: Record<string, string | undefined> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    const match = /^--([^=]+)(?:=(.*))?$/.exec(token);
    if (match && names.includes(match[1]!)) {
      const name = match[1]!;
      if (match[2] !== undefined) values[name] = match[2];
      else {
        values[name] = argv[i + 1];
        i++;
      }
      continue;
    }
    rest.push(token);
  }
  return { values, rest };
}

/** Takes every `--name value` (or `--name=value`) of a flag that may be given more than once, up to `--`. */
export function takeRepeated(argv: readonly string[], name: string): { values: string[]; rest: string[] } {
  const values: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (token === `--${name}`) {
      const value = argv[i + 1];
      if (value === undefined) throw new UsageError(`--${name} needs a value.`);
      values.push(value);
      i++;
    } else if (token.startsWith(`--${name}=`)) values.push(token.slice(name.length + 3));
    else rest.push(token);
  }
  return { values, rest };
}
