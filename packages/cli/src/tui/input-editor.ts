import type { RoutedKey } from "./bracketed-paste.js";

/** A multi-line text field as plain data; `editorKey` is its whole behaviour, so it tests without a terminal. */
export type EditorState = {
  text: string;
  /** Index into `text` (UTF-16 units, kept on code-point boundaries). */
  cursor: number;
  /** Sent messages, oldest first, for ↑/↓. */
  history: string[];
  /** Position while browsing the history; undefined when editing a new message. */
  historyIndex?: number;
  /** What was being typed before browsing the history. */
  draft?: string;
};

export const emptyEditor: EditorState = { text: "", cursor: 0, history: [] };

export type EditorOutcome = { state: EditorState; submit?: string };

const MAX_HISTORY = 100;

function lineStart(text: string, cursor: number): number {
  return text.lastIndexOf("\n", cursor - 1) + 1;
}

function lineEnd(text: string, cursor: number): number {
  const end = text.indexOf("\n", cursor);
  return end === -1 ? text.length : end;
}

function previousBoundary(text: string, cursor: number): number {
  if (cursor <= 0) return 0;
  const code = text.charCodeAt(cursor - 1);
  return code >= 0xdc00 && code <= 0xdfff && cursor >= 2 ? cursor - 2 : cursor - 1;
}

function nextBoundary(text: string, cursor: number): number {
  if (cursor >= text.length) return text.length;
  const code = text.charCodeAt(cursor);
  return code >= 0xd800 && code <= 0xdbff ? cursor + 2 : cursor + 1;
}

function wordLeft(text: string, cursor: number): number {
  let i = cursor;
  while (i > 0 && /\s/.test(text[i - 1]!)) i--;
  while (i > 0 && !/\s/.test(text[i - 1]!)) i--;
  return i;
}

function wordRight(text: string, cursor: number): number {
  let i = cursor;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  while (i < text.length && !/\s/.test(text[i]!)) i++;
  return i;
}

function replace(state: EditorState, from: number, to: number, insert: string): EditorState {
  const text = state.text.slice(0, from) + insert + state.text.slice(to);
  return { ...state, text, cursor: from + insert.length, historyIndex: undefined };
}

/** Inserts text at the cursor (a paste may bring several lines; \r\n and \r become \n). */
export function insertText(state: EditorState, input: string): EditorState {
  return replace(state, state.cursor, state.cursor, input.replace(/\r\n?/g, "\n"));
}

export function setText(state: EditorState, text: string, cursor = text.length): EditorState {
  return { ...state, text, cursor, historyIndex: undefined };
}

function browse(state: EditorState, direction: -1 | 1): EditorState {
  const { history } = state;
  if (history.length === 0) return state;
  const current = state.historyIndex ?? history.length;
  const next = Math.min(history.length, Math.max(0, current + direction));
  if (next === current) return state;
  const draft = state.historyIndex === undefined ? state.text : state.draft;
  const text = next === history.length ? (draft ?? "") : history[next]!;
  return { ...state, text, cursor: text.length, ...(next === history.length ? { historyIndex: undefined } : { historyIndex: next }), ...(draft === undefined ? {} : { draft }) };
}

function moveVertically(state: EditorState, direction: -1 | 1): EditorState | undefined {
  const { text, cursor } = state;
  const start = lineStart(text, cursor);
  const column = cursor - start;
  if (direction === -1) {
    if (start === 0) return undefined;
    const previousStart = lineStart(text, start - 1);
    return { ...state, cursor: Math.min(previousStart + column, start - 1) };
  }
  const end = lineEnd(text, cursor);
  if (end === text.length) return undefined;
  const nextEnd = lineEnd(text, end + 1);
  return { ...state, cursor: Math.min(end + 1 + column, nextEnd) };
}

// eslint-disable-next-line no-control-regex
const controls = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/**
 * One key press, or one paste. Enter sends; Alt+Enter, Shift+Enter (where the terminal reports
 * it) or a backslash right before the cursor make a new line instead, so multi-line messages work
 * in any terminal. Pasted text goes in whole, its line breaks kept: it never sends.
 */
export function editorKey(state: EditorState, input: string, key: RoutedKey): EditorOutcome {
  const { text, cursor } = state;
  if (key.paste) return { state: insertText(state, input.replace(/\r\n?/g, "\n").replace(controls, "")) };
  if (key.return) {
    if (key.meta || key.shift) return { state: insertText(state, "\n") };
    if (cursor > 0 && text[cursor - 1] === "\\") return { state: replace(state, cursor - 1, cursor, "\n") };
    const history = text.trim() === "" || state.history.at(-1) === text ? state.history : [...state.history, text].slice(-MAX_HISTORY);
    return { state: { text: "", cursor: 0, history }, submit: text };
  }
  if (key.backspace || key.delete) {
    if (key.meta || key.ctrl) return { state: replace(state, wordLeft(text, cursor), cursor, "") };
    return { state: replace(state, previousBoundary(text, cursor), cursor, "") };
  }
  if (key.leftArrow) return { state: { ...state, cursor: key.ctrl || key.meta ? wordLeft(text, cursor) : previousBoundary(text, cursor) } };
  if (key.rightArrow) return { state: { ...state, cursor: key.ctrl || key.meta ? wordRight(text, cursor) : nextBoundary(text, cursor) } };
  if (key.home) return { state: { ...state, cursor: lineStart(text, cursor) } };
  if (key.end) return { state: { ...state, cursor: lineEnd(text, cursor) } };
  if (key.upArrow) return { state: moveVertically(state, -1) ?? browse(state, -1) };
  if (key.downArrow) return { state: moveVertically(state, 1) ?? browse(state, 1) };
  if (key.ctrl) {
    switch (input) {
      case "a":
        return { state: { ...state, cursor: lineStart(text, cursor) } };
      case "e":
        return { state: { ...state, cursor: lineEnd(text, cursor) } };
      case "b":
        return { state: { ...state, cursor: previousBoundary(text, cursor) } };
      case "f":
        return { state: { ...state, cursor: nextBoundary(text, cursor) } };
      case "d":
        return { state: replace(state, cursor, nextBoundary(text, cursor), "") };
      case "u":
        return { state: replace(state, lineStart(text, cursor), cursor, "") };
      case "k":
        return { state: replace(state, cursor, lineEnd(text, cursor), "") };
      case "w":
        return { state: replace(state, wordLeft(text, cursor), cursor, "") };
      default:
        return { state };
    }
  }
  if (key.meta && (input === "b" || input === "f")) return { state: { ...state, cursor: input === "b" ? wordLeft(text, cursor) : wordRight(text, cursor) } };
  if (key.escape || key.tab || key.pageUp || key.pageDown || input === "") return { state };
  const printable = input.replace(controls, "");
  if (printable === "") return { state };
  return { state: insertText(state, printable) };
}

/** The text split into lines, with the cursor's line and column, for rendering. */
export function cursorPosition(state: EditorState): { lines: string[]; line: number; column: number } {
  const lines = state.text.split("\n");
  const before = state.text.slice(0, state.cursor).split("\n");
  return { lines, line: before.length - 1, column: before.at(-1)!.length };
}
