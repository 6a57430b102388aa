/** @jsxRuntime automatic */
import { Box, Text } from "ink";
import { useRef, useState } from "react";
import { cursorPosition, editorKey, emptyEditor, type EditorState } from "./input-editor.js";
import { useKeys } from "./key-router.js";
import { symbols, useTheme } from "./theme.js";

/** The editor's text with an inverse-video cursor; at most `maxLines` lines, following the cursor. */
export function EditorView({
  state,
  placeholder,
  prefix = symbols.prompt,
  focused = true,
  maxLines = 8,
}: {
  state: EditorState;
  placeholder?: string;
  prefix?: string;
  focused?: boolean;
  maxLines?: number;
}) {
  const theme = useTheme();
  const { lines, line, column } = cursorPosition(state);
  const first = Math.max(0, Math.min(line - maxLines + 1, lines.length - maxLines));
  const visible = lines.slice(first, first + maxLines);
  const empty = state.text === "";
  return (
    <Box flexDirection="column">
      {first > 0 ? <Text dimColor>{`  … ${first} line${first === 1 ? "" : "s"} above`}</Text> : null}
      {visible.map((text, i) => {
        const index = first + i;
        const lead = index === 0 ? `${prefix} ` : "  ";
        if (index !== line || !focused) {
          return (
            <Text key={index}>
              <Text color={theme.accent}>{lead}</Text>
              {empty && placeholder ? <Text dimColor>{placeholder}</Text> : text}
            </Text>
          );
        }
        const chars = [...text];
        const col = [...text.slice(0, column)].length;
        const at = chars[col] ?? " ";
        return (
          <Text key={index}>
            <Text color={theme.accent}>{lead}</Text>
            {chars.slice(0, col).join("")}
            <Text inverse>{at}</Text>
            {empty && placeholder ? <Text dimColor>{placeholder}</Text> : chars.slice(col + 1).join("")}
          </Text>
        );
      })}
      {first + maxLines < lines.length ? <Text dimColor>{`  … ${lines.length - first - maxLines} more lines`}</Text> : null}
    </Box>
  );
}

/**
 * Editor state that is current even between renders: keys that arrive in one burst (a paste, a
 * fast typist, tmux send-keys) each see the result of the one before.
 */
export function useEditorState(initial: EditorState = emptyEditor): [EditorState, (next: EditorState) => void, () => EditorState] {
  const ref = useRef(initial);
  const [, setState] = useState(initial);
  const update = useRef((next: EditorState) => {
    ref.current = next;
    setState(next);
  }).current;
  const get = useRef(() => ref.current).current;
  return [ref.current, update, get];
}

/** A one-off text answer (feedback, an answer of one's own): Enter sends, Esc goes back. */
export function TextField({ label, onSubmit, onCancel, placeholder, initial }: { label: string; onSubmit: (text: string) => void; onCancel?: () => void; placeholder?: string; /** Text to start from (a value being edited), cursor at its end. */ initial?: string }) {
  const [state, setState, current] = useEditorState(initial ? { ...emptyEditor, text: initial, cursor: initial.length } : emptyEditor);
  useKeys((input, key) => {
    if (key.escape) {
      if (!onCancel) return false;
      onCancel();
      return true;
    }
    const outcome = editorKey(current(), input, key);
    setState(outcome.state);
    if (outcome.submit !== undefined && outcome.submit.trim() !== "") onSubmit(outcome.submit.trim());
    return true;
  });
  return (
    <Box flexDirection="column">
      <Text dimColor>{label}</Text>
      <EditorView state={state} {...(placeholder ? { placeholder } : {})} />
    </Box>
  );
}
