/** A text's first line, cut to `max` characters with "…": how a call is summed up on one line. */
export function firstLine(text: string, max = 100): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
