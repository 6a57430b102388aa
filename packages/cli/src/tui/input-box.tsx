/** @jsxRuntime automatic */
import { Box, Text } from "ink";
import { useEffect, useRef, useState } from "react";
import { completionsAt, type Completion, type FileIndex } from "@cairn/host/completion";
import { editorKey, setText } from "./input-editor.js";
import { inputRows } from "./layout.js";
import { useKeys } from "./key-router.js";
import { slashCommands, type SlashCommand } from "./slash-commands.js";
import { EditorView, useEditorState } from "./text-field.js";
import { symbols, useTheme } from "./theme.js";

/**
 * Where the person types. Enter sends (a `\` before it, Alt+Enter or Shift+Enter make a new
 * line); `/` at the start completes commands, `@` completes workspace paths: ↑/↓ choose, Tab or
 * Enter takes the suggestion, Esc closes the list.
 */
export function InputBox({
  onSubmit,
  files,
  busy,
  commands = slashCommands,
  active = true,
  maxLines = 8,
  width = 80,
  onRows,
  onPaste,
  onEmptyBackspace,
  typedAhead,
}: {
  /** Text typed while a prompt had the keys: each piece not yet taken is added to the end of the input. */
  typedAhead?: ReadonlyArray<{ id: number; text: string }>;
  onSubmit: (text: string) => void;
  /** Sees a paste first: true when it took it (a pasted image path), so it is not typed in. */
  onPaste?: (text: string) => boolean;
  /** Backspace with nothing typed: true when it did something with it (took off an attached picture). */
  onEmptyBackspace?: () => boolean;
  files?: FileIndex;
  busy: boolean;
  commands?: readonly SlashCommand[];
  active?: boolean;
  maxLines?: number;
  width?: number;
  /** Told how many rows the box takes, so the live region above can be sized to fit. */
  onRows?: (rows: number) => void;
}) {
  const theme = useTheme();
  const [state, setState, current] = useEditorState();
  const [selected, setSelected] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<string | undefined>(undefined);
  const [, setFilesReady] = useState(files?.ready ?? false);
  const completion: Completion | undefined = dismissedAt === state.text ? undefined : completionsAt(state.text, state.cursor, commands, files);
  const menu = useRef(completion);
  menu.current = completion;
  const wantsFiles = /(^|[\s([{"'])@"?[^\s"]*$/.test(state.text.slice(0, state.cursor));

  useEffect(() => {
    if (!wantsFiles || !files || files.ready) return;
    let live = true;
    void files.load().then(() => live && setFilesReady(true));
    return () => {
      live = false;
    };
  }, [wantsFiles, files]);

  const takenAhead = useRef(typedAhead?.at(-1)?.id ?? 0);
  const lastAhead = typedAhead?.at(-1)?.id ?? 0;
  useEffect(() => {
    const fresh = (typedAhead ?? []).filter((piece) => piece.id > takenAhead.current);
    if (fresh.length === 0) return;
    takenAhead.current = lastAhead;
    const now = current();
    const text = now.text + fresh.map((piece) => piece.text).join("");
    setState(setText(now, text, text.length));
  }, [lastAhead]);

  const take = (index: number) => {
    const open = menu.current;
    const item = open?.items[index];
    if (!open || !item) return;
    const now = current();
    const text = now.text.slice(0, open.from) + item.replacement + now.text.slice(open.to);
    setState(setText(now, text, open.from + item.replacement.length));
    setSelected(0);
  };

  useKeys((input, key) => {
    if (key.paste && onPaste?.(input)) return true;
    if ((key.backspace || key.delete) && current().text === "" && onEmptyBackspace?.()) return true;
    const open = menu.current;
    if (open) {
      if (key.escape) {
        setDismissedAt(current().text);
        return true;
      }
      if (key.upArrow || key.downArrow) {
        const n = open.items.length;
        setSelected((s) => (Math.min(s, n - 1) + (key.upArrow ? n - 1 : 1)) % n);
        return true;
      }
      const item = open.items[Math.min(selected, open.items.length - 1)];
      const exact = item !== undefined && current().text.slice(open.from, open.to) === item.replacement.trimEnd();
      if (key.tab || (key.return && !key.meta && !key.shift && !exact)) {
        take(Math.min(selected, open.items.length - 1));
        return true;
      }
    }
    if (key.escape || key.tab) return false;
    if (key.ctrl && input === "d" && current().text === "") return false;
    const outcome = editorKey(current(), input, key);
    setState(outcome.state);
    setSelected(0);
    if (outcome.submit !== undefined) onSubmit(outcome.submit);
    return true;
  }, active);

  const shown = active ? (completion?.items ?? []) : [];
  const pick = Math.min(selected, Math.max(0, shown.length - 1));
  const rows = inputRows(state, width, maxLines, shown.length);
  useEffect(() => onRows?.(rows), [rows, onRows]);
  return (
    <Box flexDirection="column">
      <Box borderStyle="round" borderColor={theme.accent} borderDimColor={busy} paddingX={1} flexDirection="column">
        <EditorView state={state} placeholder={busy ? "type ahead: sent when the turn ends" : "describe a task, or /help"} prefix={symbols.prompt} focused={active} maxLines={maxLines} />
      </Box>
      {shown.length > 0 ? (
        <Box flexDirection="column" paddingLeft={2}>
          {shown.map((item, i) => (
            <Text key={item.label} wrap="truncate-end">
              <Text color={theme.accent}>{i === pick ? `${symbols.prompt} ` : "  "}</Text>
              <Text bold={i === pick}>{item.label}</Text>
              {item.detail ? <Text dimColor>{`  ${item.detail}`}</Text> : null}
            </Text>
          ))}
          <Text dimColor>Tab takes it · ↑/↓ choose · Esc closes</Text>
        </Box>
      ) : null}
    </Box>
  );
}
