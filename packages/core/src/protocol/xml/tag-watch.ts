/**
 * Finds the first of a few tags (`</content>`, `</write_to_file>`) in a stream of text, across chunk
 * boundaries, reading each character once. Every tag starts with `<` and holds no other `<`, so a
 * mismatch can only restart at a `<`.
 */
export class TagWatch {
  /** The first tag seen, once one was. */
  found: string | null = null;
  private partial = "";

  constructor(private readonly tags: readonly string[]) {}

  /** Reads `s` from `from` to `to`. */
  feed(s: string, from: number, to: number): void {
    let i = from;
    while (i < to && this.found === null) {
      if (this.partial === "") {
        const lt = s.indexOf("<", i);
        if (lt < 0 || lt >= to) return;
        this.partial = "<";
        i = lt + 1;
        continue;
      }
      const candidate = this.partial + s[i];
      if (!this.tags.some((tag) => tag.startsWith(candidate))) {
        this.partial = "";
        continue;
      }
      i++;
      this.partial = candidate;
      if (this.tags.includes(candidate)) this.found = candidate;
    }
  }
}
