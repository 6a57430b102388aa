/**
 * File names are bytes; JavaScript strings are text. A name that is not valid UTF-8 (a Latin-1
 * file from an old archive, a name a program made up) decoded the usual way turns each bad byte
 * into U+FFFD and can never be found again: a checkpoint could not record it, a restore could not
 * bring it back, a search could not open it.
 *
 * Names here are decoded without loss, as Python's "surrogateescape" does: valid UTF-8 as usual, and
 * each byte of an invalid sequence as a lone surrogate U+DC80..U+DCFF, which no valid text holds.
 * `fsName` turns such a string back into the exact bytes for a file system call, `shownName` into
 * something a person or the model can read (`f\xff.txt`), and `lossyName` into what reading the
 * name as UTF-8 gives (what the ignore rules, themselves read as UTF-8, can match).
 */

/** A lone low surrogate carrying one raw byte (not the second half of a surrogate pair). */
const rawByte = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;
const rawBytes = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;

/** Bytes of a name (or of git's `-z` output) as a string that loses nothing. */
export function decodeName(bytes: Buffer): string {
  const text = bytes.toString("utf8");
  if (!text.includes("\uFFFD") || Buffer.from(text, "utf8").equals(bytes)) return text;
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length > 0 && i + length <= bytes.length) {
      const sequence = bytes.subarray(i, i + length);
      const decoded = sequence.toString("utf8");
      // Valid exactly when it encodes back to the same bytes (overlong forms and surrogates do not).
      if (Buffer.from(decoded, "utf8").equals(sequence)) {
        out += decoded;
        i += length;
        continue;
      }
    }
    out += String.fromCharCode(0xdc00 + lead);
    i += 1;
  }
  return out;
}

/** The exact bytes of a name decoded by `decodeName`. */
export function encodeName(name: string): Buffer {
  if (!hasRawBytes(name)) return Buffer.from(name, "utf8");
  const parts: Buffer[] = [];
  let start = 0;
  for (const match of name.matchAll(rawBytes)) {
    const at = match.index;
    parts.push(Buffer.from(name.slice(start, at), "utf8"), Buffer.from([name.charCodeAt(at) - 0xdc00]));
    start = at + 1;
  }
  parts.push(Buffer.from(name.slice(start), "utf8"));
  return Buffer.concat(parts);
}

/** Whether a decoded name holds bytes that are not UTF-8. */
export function hasRawBytes(name: string): boolean {
  return rawByte.test(name);
}

/** A name for a file system call: the string itself, or its exact bytes when it is not UTF-8. */
export function fsName(name: string): string | Buffer {
  return hasRawBytes(name) ? encodeName(name) : name;
}

/** A name for a person or the model: each byte that is not UTF-8 as `\xNN`. */
export function shownName(name: string): string {
  return hasRawBytes(name) ? name.replace(rawBytes, (c) => `\\x${(c.charCodeAt(0) - 0xdc00).toString(16).padStart(2, "0")}`) : name;
}

/** A name as reading its bytes as UTF-8 gives it (each bad byte U+FFFD). */
export function lossyName(name: string): string {
  return hasRawBytes(name) ? name.replace(rawBytes, "\uFFFD") : name;
}

/** The entries of `-z` output (NUL-terminated records), decoded without loss. */
export function splitNulNames(output: Buffer | string): string[] {
  if (typeof output === "string") {
    const parts = output.split("\0");
    if (parts.at(-1) === "") parts.pop();
    return parts;
  }
  // Almost always all UTF-8: one decode and a split (record by record is several times slower on a large index).
  const text = output.toString("utf8");
  if (!text.includes("\uFFFD")) return splitNulNames(text);
  const records: string[] = [];
  let start = 0;
  for (let end = output.indexOf(0, start); end !== -1; end = output.indexOf(0, start)) {
    records.push(decodeName(output.subarray(start, end)));
    start = end + 1;
  }
  if (start < output.length) records.push(decodeName(output.subarray(start)));
  return records;
}

/** Names for `--stdin -z` style input, as their exact bytes. */
export function joinNulNames(names: readonly string[]): Buffer {
  if (!names.some(hasRawBytes)) return Buffer.from(names.map((name) => `${name}\0`).join(""), "utf8");
  const zero = Buffer.from([0]);
  return Buffer.concat(names.flatMap((name) => [encodeName(name), zero]));
}
