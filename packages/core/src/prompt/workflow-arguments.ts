/** `$ARGUMENTS`, `$1`…`$9`: where a workflow wants the words typed after its name. */
const placeholder = /\$(ARGUMENTS|[1-9])(?![0-9A-Za-z_])/g;

/** The words of the arguments; "double" or 'single' quotes keep spaces inside one argument. */
export function splitArguments(rest: string): string[] {
  const words: string[] = [];
  for (const match of rest.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3] ?? "");
  return words;
}

/**
 * The workflow's text with its arguments in place: `$ARGUMENTS` is everything after the name,
 * `$1`… one argument each (empty when not given). A workflow that names no placeholder gets the
 * arguments appended, as before placeholders existed.
 */
export function fillWorkflow(body: string, rest: string): string {
  if (body.search(placeholder) === -1) return `${body}${rest ? `\n\nArguments: ${rest}` : ""}`;
  const words = splitArguments(rest);
  return body.replace(placeholder, (_, name: string) => (name === "ARGUMENTS" ? rest : (words[Number(name) - 1] ?? "")));
}
