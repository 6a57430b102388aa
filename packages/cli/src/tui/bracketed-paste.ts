import type { Key } from "ink";

/** Asks the terminal to mark pasted text (xterm's bracketed paste mode); `disable` undoes it. */
export const bracketedPaste = { enable: "\u001b[?2004h", disable: "\u001b[?2004l" } as const;

const PASTE_START = "\u001b[200~";
const PASTE_END = "\u001b[201~";

/** A key as the focused component receives it: ink's, plus `paste` when `input` is pasted text. */
export type RoutedKey = Key & { paste?: boolean };

export type KeyEvent = { input: string; key: RoutedKey };

/** A key event with nothing pressed: the base for the events this module makes (and for tests). */
export const noKey: RoutedKey = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/**
 * Sorts raw terminal input (as ink's parser splits it: escape sequences alone, other text in
 * runs) into what the person did. Only text between the terminal's paste markers is a paste, so
 * its newlines stay newlines; anything else is typing, however fast it came: a run like
 * "fix it\r" (tmux send-keys, a quick typist) is the text and then Enter, which sends.
 */
export class InputSorter {
  /** The paste being received, between its start and end markers. */
  private pasted: string | undefined;

  /** The key events in `raw`, or undefined when it is one ordinary key for ink to read. */
  take(raw: string): KeyEvent[] | undefined {
    if (this.pasted !== undefined) {
      const end = raw.indexOf(PASTE_END);
      if (end === -1) {
        this.pasted += raw;
        return [];
      }
      const text = this.pasted + raw.slice(0, end);
      this.pasted = undefined;
      const rest = raw.slice(end + PASTE_END.length);
      const after = rest === "" ? [] : (this.take(rest) ?? [{ input: rest, key: { ...noKey } }]);
      return [...(text === "" ? [] : [{ input: text, key: { ...noKey, paste: true } }]), ...after];
    }
    if (raw.startsWith(PASTE_START)) {
      this.pasted = "";
      const rest = raw.slice(PASTE_START.length);
      return rest === "" ? [] : this.take(rest);
    }
    // Two Escapes in one read (a busy machine hands both presses over together): ink would read one.
    if (raw === "\u001b\u001b") return [escapeKey(), escapeKey()];
    if (raw.length < 2 || raw.includes("\u001b") || !raw.includes("\r")) return undefined;
    const events: KeyEvent[] = [];
    for (const part of raw.split(/(\r)/)) {
      if (part === "\r") events.push({ input: "", key: { ...noKey, return: true } });
      else if (part !== "") events.push({ input: part, key: { ...noKey } });
    }
    return events;
  }

  /** True while a paste has started and not ended. */
  get pasting(): boolean {
    return this.pasted !== undefined;
  }
}

/** One press of Escape, as ink reports it. */
function escapeKey(): KeyEvent {
  return { input: "", key: { ...noKey, escape: true, meta: true } };
}
