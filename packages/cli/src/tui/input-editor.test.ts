import { noKey, type RoutedKey as Key } from "./bracketed-paste.js";
import { describe, expect, it } from "vitest";
import { editorKey, emptyEditor, type EditorState } from "./input-editor.js";

const none: Key = noKey;

type Press = string | [string, Partial<Key>];

/** Types a sequence of keys; returns the final state and what was sent. */
function typeKeys(presses: Press[], start: EditorState = emptyEditor): { state: EditorState; sent: string[] } {
  let state = start;
  const sent: string[] = [];
  for (const press of presses) {
    const [input, key] = typeof press === "string" ? [press, {}] : press;
    const outcome = editorKey(state, input, { ...none, ...key });
    state = outcome.state;
    if (outcome.submit !== undefined) sent.push(outcome.submit);
  }
  return { state, sent };
}

const enter: Press = ["", { return: true }];
const backspace: Press = ["", { delete: true }];
const left: Press = ["", { leftArrow: true }];
const up: Press = ["", { upArrow: true }];
const down: Press = ["", { downArrow: true }];

describe("the input editor", () => {
  it("keeps a paste's line breaks (\\r, \\r\\n or \\n) and does not send it; Enter after it sends all", () => {
    const { state, sent } = typeKeys([["one\rtwo\r\nthree\n", { paste: true }]]);
    expect(sent).toEqual([]);
    expect(state.text).toBe("one\ntwo\nthree\n");
    const after = typeKeys(["four", enter], state);
    expect(after.sent).toEqual(["one\ntwo\nthree\nfour"]);
  });

  it("drops control characters from a paste but keeps tabs", () => {
    const { state } = typeKeys([["a\tb\u0007\u001b[Ac", { paste: true }]]);
    expect(state.text).toBe("a\tb[Ac");
  });

  it("Enter sends the text and clears the field", () => {
    const { state, sent } = typeKeys(["fix the bug", enter]);
    expect(sent).toEqual(["fix the bug"]);
    expect(state.text).toBe("");
  });

  it("Alt+Enter, Shift+Enter and a trailing backslash make new lines instead of sending", () => {
    const { state, sent } = typeKeys(["one", ["", { return: true, meta: true }], "two", ["", { return: true, shift: true }], "three\\", enter, "four", enter]);
    expect(sent).toEqual(["one\ntwo\nthree\nfour"]);
    expect(state.text).toBe("");
  });

  it("edits at the cursor: arrows, backspace, word and line deletion", () => {
    expect(typeKeys(["helo", left, "l"]).state.text).toBe("hello");
    expect(typeKeys(["hello", backspace, backspace]).state.text).toBe("hel");
    expect(typeKeys(["rm -rf build", ["w", { ctrl: true }]]).state.text).toBe("rm -rf ");
    expect(typeKeys(["line one", ["u", { ctrl: true }], "x"]).state.text).toBe("x");
    expect(typeKeys(["abc", ["a", { ctrl: true }], ["k", { ctrl: true }]]).state.text).toBe("");
  });

  it("backspace removes a whole emoji, not half of it", () => {
    expect(typeKeys(["ok 👍", backspace]).state.text).toBe("ok ");
  });

  it("↑/↓ move between lines, and past the first line browse earlier messages", () => {
    const { state } = typeKeys(["first", enter, "second", enter, "draft", up]);
    expect(state.text).toBe("second");
    const older = typeKeys([up], state).state;
    expect(older.text).toBe("first");
    const back = typeKeys([down, down], older).state;
    expect(back.text).toBe("draft");
    const multi = typeKeys(["a", ["", { return: true, meta: true }], "b", up, "X"]).state;
    expect(multi.text).toBe("aX\nb");
  });

  it("control keys that mean nothing here insert nothing", () => {
    expect(typeKeys(["ab", ["", { escape: true, meta: true }], ["", { tab: true }], "\u0007"]).state.text).toBe("ab");
  });
});
