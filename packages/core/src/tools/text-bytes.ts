/*
 * Text cut to a number of bytes (at a line break where one is near) and sizes as people read them:
 * for what a tool or a mention adds to a message.
 */

/** The first `maxBytes` of the text, ending at a line break when one is in the second half. */
export function headBytes(text: string, maxBytes: number): { text: string; cut: boolean } {
  const data = Buffer.from(text);
  if (data.length <= maxBytes) return { text, cut: false };
  const head = data.subarray(0, maxBytes).toString("utf8").replace(/\uFFFD$/, "");
  const lastBreak = head.lastIndexOf("\n");
  return { text: lastBreak > head.length / 2 ? head.slice(0, lastBreak + 1) : head, cut: true };
}

/** The last `maxBytes` of the text, starting after a line break when one is in the first half. */
export function tailBytes(text: string, maxBytes: number): { text: string; cut: boolean } {
  const data = Buffer.from(text);
  if (data.length <= maxBytes) return { text, cut: false };
  const tail = data.subarray(data.length - maxBytes).toString("utf8").replace(/^\uFFFD/, "");
  const firstBreak = tail.indexOf("\n");
  return { text: firstBreak !== -1 && firstBreak < tail.length / 2 ? tail.slice(firstBreak + 1) : tail, cut: true };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
