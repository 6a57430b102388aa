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
