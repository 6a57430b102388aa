/**
 * Terminal escape sequences and control characters are noise to a model. `TerminalTextCleaner`
 * removes them from a stream of text chunk by chunk: a sequence split across two chunks is held
 * back until it is complete, so no half-sequence garbage ("[32m") leaks into the output.
 */

/**
 * A complete escape sequence at the start (sticky): CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`),
 * DCS/SOS/PM/APC strings (`ESC P|X|^|_ … ST`), nF sequences (`ESC ( B`), and two-character escapes
 * (`ESC 7`, `ESC M`, `ESC c`); `[ ] P X ^ _` are introducers, not finals.
 */
const COMPLETE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[ -/]+[0-~]|[0-OQ-WYZ\\`-~])/y;

/** What could still become a complete sequence if more text arrived (anchored to the end). */
const PREFIX = /\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[PX^_][^\x1b]*\x1b?|[ -/]*)$/y;

/** An unfinished sequence longer than this is not a sequence: drop its ESC and let the text through. */
const MAX_PENDING = 4096;

/** Backspace over a character (overstrike, as in `man` output) deletes that character. */
const OVERSTRIKE = /[^\n\x08]\x08/g;
/** Anything the cleaner acts on: escapes, carriage returns, backspaces, other controls. */
const SPECIAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/** C0 controls except tab, newline and carriage return; DEL; C1 controls. */
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;

export class TerminalTextCleaner {
  private pending = "";

  /** Cleans the next chunk; may hold back an unfinished escape sequence or a trailing "\r". */
  push(chunk: string): string {
    const text = this.pending + chunk;
    this.pending = "";
    return this.clean(text, false);
  }

  /** Cleans whatever was held back, at the end of the stream. */
  flush(): string {
    const text = this.pending;
    this.pending = "";
    return this.clean(text, true);
  }

  private clean(text: string, final: boolean): string {
    if (!SPECIAL.test(text)) return text; // the common case: plain text
    let out = "";
    let from = 0;
    for (;;) {
      const esc = text.indexOf("\x1b", from);
      if (esc === -1) {
        out += text.slice(from);
        break;
      }
      out += text.slice(from, esc);
      COMPLETE.lastIndex = esc;
      if (COMPLETE.test(text)) {
        from = COMPLETE.lastIndex;
        continue;
      }
      PREFIX.lastIndex = esc;
      if (!final && text.length - esc <= MAX_PENDING && PREFIX.test(text)) {
        this.pending = text.slice(esc);
        from = text.length;
        break;
      }
      from = esc + 1; // a lone or malformed ESC: drop it, keep what follows
    }
    // "\r\n" is one newline; a chunk ending in "\r" may be the first half of one.
    if (!final && this.pending === "" && out.endsWith("\r")) {
      this.pending = "\r";
      out = out.slice(0, -1);
    }
    return out.replaceAll("\r\n", "\n").replace(OVERSTRIKE, "").replace(CONTROL, "");
  }
}

/** Removes escape sequences and control characters from a whole text. */
export function stripAnsi(text: string): string {
  const cleaner = new TerminalTextCleaner();
  return cleaner.push(text) + cleaner.flush();
}

/**
 * What a terminal would show for text with carriage returns: progress bars redraw one line with
 * "\r", and only the last drawing of each line is worth reading.
 */
export function collapseCarriageReturns(text: string): string {
  if (!text.includes("\r")) return text;
  return text.replace(/[^\n]*\r(?=[^\r\n])/g, "").replaceAll("\r", "");
}
