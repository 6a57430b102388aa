/** A response body read up to a cap: the bytes kept, whether more came, and how many arrived. */
export type CappedBody = { data: Buffer; cut: boolean; total: number };

/** Reads at most `maxBytes` of a response, cancelling the rest so a huge page costs nothing more. */
export async function readCapped(response: Response, maxBytes: number): Promise<CappedBody> {
  if (!response.body) return { data: Buffer.alloc(0), cut: false, total: 0 };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { data: Buffer.concat(chunks), cut: false, total };
    total += value.length;
    chunks.push(value);
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return { data: Buffer.concat(chunks).subarray(0, maxBytes), cut: true, total };
    }
  }
}

/** Text in the response's charset, falling back to UTF-8 for a label the decoder does not know. */
export function decodeText(data: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(data);
  } catch {
    return new TextDecoder("utf-8").decode(data);
  }
}
