/**
 * What a sed script does besides editing its text: GNU sed's `e` command and `s///e` flag run
 * shell commands, `w`/`W` and `s///w` write files, `r`/`R` read files. A script that cannot be
 * read is reported as a problem rather than guessed at.
 */
export type SedEffects = { ok: true; runs: boolean; writes: string[]; reads: string[] } | { ok: false; problem: string };

export function sedEffects(script: string): SedEffects {
  const reader = new SedReader(script);
  try {
    reader.read();
    return { ok: true, runs: reader.runs, writes: reader.writes, reads: reader.reads };
  } catch (error) {
    if (error instanceof SedSyntax) return { ok: false, problem: error.message };
    throw error;
  }
}

class SedSyntax extends Error {}

const simpleCommands = new Set(["=", "d", "D", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z", "F"]);

class SedReader {
  runs = false;
  writes: string[] = [];
  reads: string[] = [];
  #i = 0;

  constructor(private readonly s: string) {}

  read(): void {
    for (;;) {
      this.skip(" \t\n;");
      if (this.#i >= this.s.length) return;
      if (this.peek() === "#") {
        this.restOfLine();
        continue;
      }
      this.addresses();
      this.skip(" \t");
      while (this.peek() === "!") {
        this.#i++;
        this.skip(" \t");
      }
      this.command(this.next());
      this.skip(" \t");
      const end = this.peek();
      if (end !== undefined && !";\n}#".includes(end)) throw new SedSyntax(`sed script: unexpected "${end}" after a command`);
    }
  }

  private command(c: string | undefined): void {
    if (c === undefined) throw new SedSyntax("sed script: an address without a command");
    if (c === "{" || c === "}" || simpleCommands.has(c)) return;
    switch (c) {
      case ":":
      case "b":
      case "t":
      case "T":
      case "v":
        this.skip(" \t");
        while (this.#i < this.s.length && !";\n}".includes(this.s[this.#i] ?? "")) this.#i++;
        return;
      case "l":
      case "L":
      case "q":
      case "Q":
        this.skip(" \t");
        while (/\d/.test(this.peek() ?? "")) this.#i++;
        return;
      case "a":
      case "i":
      case "c":
        this.text();
        return;
      case "r":
      case "R":
        this.reads.push(this.fileName());
        return;
      case "w":
      case "W":
        this.writes.push(this.fileName());
        return;
      case "e":
        this.runs = true;
        this.restOfLine();
        return;
      case "y": {
        const delimiter = this.delimiter();
        this.until(delimiter, false);
        this.until(delimiter, false);
        return;
      }
      case "s": {
        const delimiter = this.delimiter();
        this.until(delimiter, true);
        this.until(delimiter, false);
        this.substituteFlags();
        return;
      }
      default:
        throw new SedSyntax(`sed script: unknown command "${c}"`);
    }
  }

  private substituteFlags(): void {
    for (;;) {
      const f = this.peek();
      if (f === undefined || !/[gpiImMe0-9w]/.test(f)) return;
      this.#i++;
      if (f === "e") this.runs = true;
      if (f === "w") {
        this.writes.push(this.fileName());
        return;
      }
    }
  }

  private addresses(): void {
    if (!this.address()) return;
    this.skip(" \t");
    if (this.peek() !== ",") return;
    this.#i++;
    this.skip(" \t");
    if (this.peek() === "+" || this.peek() === "~") {
      this.#i++;
      this.digits();
      return;
    }
    if (!this.address()) throw new SedSyntax("sed script: a range without an end address");
  }

  private address(): boolean {
    const c = this.peek();
    if (c !== undefined && /\d/.test(c)) {
      this.digits();
      if (this.peek() === "~") {
        this.#i++;
        this.digits();
      }
      return true;
    }
    if (c === "$") {
      this.#i++;
      return true;
    }
    if (c === "/" || c === "\\") {
      this.#i++;
      const delimiter = c === "/" ? "/" : this.next();
      if (delimiter === undefined || delimiter === "\n") throw new SedSyntax("sed script: an address without a delimiter");
      this.until(delimiter, true);
      while (this.peek() === "I" || this.peek() === "M") this.#i++;
      return true;
    }
    return false;
  }

  /** Reads up to an unescaped delimiter; in a regular expression, [ … ] may hold the delimiter. */
  private until(delimiter: string, regex: boolean): void {
    while (this.#i < this.s.length) {
      const c = this.s[this.#i++];
      if (c === "\\") {
        this.#i++;
        continue;
      }
      if (c === delimiter) return;
      if (regex && c === "[") this.bracket();
    }
    throw new SedSyntax(`sed script: an unterminated ${regex ? "regular expression" : "replacement"}`);
  }

  private bracket(): void {
    if (this.peek() === "^") this.#i++;
    if (this.peek() === "]") this.#i++;
    while (this.#i < this.s.length) {
      const c = this.s[this.#i++];
      if (c === "[" && /[:.=]/.test(this.peek() ?? "")) {
        const close = this.s.indexOf(`${this.peek() ?? ""}]`, this.#i + 1);
        if (close < 0) break;
        this.#i = close + 2;
        continue;
      }
      if (c === "]") return;
    }
    throw new SedSyntax("sed script: an unterminated bracket expression");
  }

  private delimiter(): string {
    const d = this.next();
    if (d === undefined || d === "\n" || d === "\\") throw new SedSyntax("sed script: a command without a delimiter");
    return d;
  }

  private text(): void {
    // GNU one-line form (a text) and the classic form (a\ newline text, lines ending in \ continue).
    while (this.#i < this.s.length) {
      const c = this.s[this.#i++];
      if (c === "\\") {
        this.#i++;
        continue;
      }
      if (c === "\n") return;
    }
  }

  private fileName(): string {
    this.skip(" \t");
    const start = this.#i;
    this.restOfLine();
    return this.s.slice(start, this.#i);
  }

  private restOfLine(): void {
    while (this.#i < this.s.length && this.s[this.#i] !== "\n") this.#i++;
  }

  private digits(): void {
    while (/\d/.test(this.peek() ?? "")) this.#i++;
  }

  private skip(chars: string): void {
    while (this.#i < this.s.length && chars.includes(this.s[this.#i] ?? "")) this.#i++;
  }

  private peek(): string | undefined {
    return this.s[this.#i];
  }

  private next(): string | undefined {
    return this.s[this.#i++];
  }
}
