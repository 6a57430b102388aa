/** @jsxRuntime automatic */
import { Box, Text, useStdout } from "ink";
import { useRef, useState } from "react";
import { useKeys } from "./key-router.js";
import { TextField } from "./text-field.js";
import { symbols, useTheme } from "./theme.js";
import { terminalSafe } from "../terminal-text.js";
import type { Prompt } from "./view-types.js";

/** One line of the settings screen: a group's heading, a checkbox, a value to edit or cycle, or a fact to read. */
export type SettingsRow =
  | { kind: "heading"; label: string }
  | { kind: "check"; id: string; label: string; on: boolean; hint?: string; /** A key that does something else to it (r: restart an MCP server). */ action?: RowAction }
  /** Enter edits it as text; with `choices`, Enter and Space move to the next choice instead. */
  | { kind: "value"; id: string; label: string; value: string; hint?: string; choices?: readonly string[]; /** The text the field starts from, when not `value` ("" for "no limit"). */ editText?: string }
  | { kind: "fact"; label: string; value: string };

/** `key` does it; `label` says so in the key line ("restarts"), `doing` while it runs ("restarting"). */
export type RowAction = { key: string; label: string; doing: string };

/** What the screen shows and changes; each change is saved at once (the one line of what is wrong, or undefined). */
export type SettingsScreenSource = {
  /** Where the changes go, as the footer names it. */
  readonly file: string;
  /** Why the file cannot be changed as it stands (it is broken), shown until a change goes through. */
  problem(): string | undefined;
  rows(): SettingsRow[];
  toggle(id: string): Promise<string | undefined>;
  set(id: string, text: string): Promise<string | undefined>;
  /** The row's action (see RowAction); what went wrong, or undefined. */
  act(id: string): Promise<string | undefined>;
};

const selectable = (row: SettingsRow | undefined) => row !== undefined && (row.kind === "check" || row.kind === "value");

/** The next selectable row from `from`, going `step` (wrapping); `from` itself when none other is. */
function move(rows: SettingsRow[], from: number, step: number): number {
  for (let i = 1; i <= rows.length; i++) {
    const index = (((from + step * i) % rows.length) + rows.length) % rows.length;
    if (selectable(rows[index])) return index;
  }
  return from;
}

/**
 * /settings: the groups and their rows. ↑/↓ move, Space toggles a checkbox, Enter edits a value,
 * Esc closes. A change is saved as soon as it is made, and applies from the next task: the task
 * now open keeps the settings it was opened with.
 */
export function SettingsScreen({ source, taskOpen, maxRows, onClose }: { source: SettingsScreenSource; taskOpen: boolean; maxRows: number; onClose: () => void }) {
  const theme = useTheme();
  // Server names and errors come from outside: shown without any escape sequence of theirs.
  const read = () => terminalSafe(source.rows());
  const [rows, setRows] = useState(read);
  const [selected, setSelected] = useState(() => move(rows, -1, 1));
  const [editing, setEditing] = useState<Extract<SettingsRow, { kind: "value" }>>();
  const [problem, setProblem] = useState(() => source.problem());
  const [changed, setChanged] = useState(false);
  const [working, setWorking] = useState<string>();
  // Current between renders, so keys that arrive in one burst each see the one before.
  const current = useRef({ rows, selected, saving: false });
  current.current.rows = rows;

  const select = (index: number) => {
    current.current.selected = index;
    setSelected(index);
  };
  /** One change or action at a time; `doing` names one that takes a while (a server's restart). */
  const apply = (change: () => Promise<string | undefined>, doing?: string, saves = true) => {
    if (current.current.saving) return;
    current.current.saving = true;
    setWorking(doing);
    const done = (error: string | undefined) => {
      current.current.saving = false;
      setWorking(undefined);
      setProblem(error);
      if (saves && error === undefined) setChanged(true);
      setRows(read());
    };
    void change().then(done, (error: unknown) => done(String((error as Error).message ?? error).split("\n")[0]));
  };

  useKeys((input, key) => {
    if (key.paste) return true;
    if (key.escape) {
      onClose();
      return true;
    }
    const { rows: shown, selected: at } = current.current;
    const row = shown[at];
    if (key.upArrow) select(move(shown, at, -1));
    else if (key.downArrow || key.tab) select(move(shown, at, 1));
    else if (row?.kind === "check" && (input === " " || key.return)) apply(() => source.toggle(row.id));
    else if (row?.kind === "check" && row.action && input === row.action.key) apply(() => source.act(row.id), `${row.action.doing} ${row.label}…`, false);
    else if (row?.kind === "value" && row.choices && (input === " " || key.return)) {
      const next = row.choices[(row.choices.indexOf(row.value) + 1) % row.choices.length]!;
      apply(() => source.set(row.id, next));
    } else if (row?.kind === "value" && key.return) {
      setProblem(undefined);
      setEditing(row);
    } else if (key.ctrl || key.meta) return false;
    return true;
  }, editing === undefined);

  // Long lists scroll, keeping the selected row and its group's heading in view.
  const visible = Math.max(3, maxRows);
  const first = Math.max(0, Math.min(selected - visible + 2, rows.length - visible));
  const shownRow = rows[selected];
  const action = shownRow?.kind === "check" ? shownRow.action : undefined;
  const footer = changed ? `Saved. Changes apply from the next task${taskOpen ? " (/clear starts one)" : ""}.` : "Each change is saved at once and applies from the next task.";
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.accent} paddingX={1}>
      <Text wrap="truncate-end">
        <Text bold>Settings</Text>
        <Text dimColor>{`  ${source.file}`}</Text>
      </Text>
      {first > 0 ? <Text dimColor>{`  ↑ ${first} more`}</Text> : null}
      {rows.slice(first, first + visible).map((row, i) => (
        <RowView key={first + i} row={row} selected={first + i === selected} />
      ))}
      {first + visible < rows.length ? <Text dimColor>{`  ↓ ${rows.length - first - visible} more`}</Text> : null}
      {editing ? (
        <TextField
          label={`${editing.label}${editing.hint ? ` (${editing.hint})` : ""}: Enter saves · Esc goes back`}
          initial={editing.editText ?? editing.value}
          onSubmit={(text) => {
            setEditing(undefined);
            apply(() => source.set(editing.id, text));
          }}
          onCancel={() => setEditing(undefined)}
        />
      ) : null}
      {working ? <Text color={theme.accent}>{working}</Text> : null}
      {problem ? (
        <Text color={theme.error} wrap="wrap">
          {problem}
        </Text>
      ) : null}
      <Text dimColor wrap="truncate-end">
        {footer}
      </Text>
      <Text dimColor wrap="truncate-end">
        {`↑/↓ move · Space toggles · Enter edits${action ? ` · ${action.key} ${action.label}` : ""} · Esc closes`}
      </Text>
    </Box>
  );
}

function RowView({ row, selected }: { row: SettingsRow; selected: boolean }) {
  const theme = useTheme();
  const lead = <Text color={theme.accent}>{selected ? `${symbols.prompt} ` : "  "}</Text>;
  switch (row.kind) {
    case "heading":
      return (
        <Text bold color={theme.accent}>
          {row.label}
        </Text>
      );
    case "check":
      return (
        <Text wrap="truncate-end">
          {lead}
          <Text bold={selected}>{`${row.on ? "[x]" : "[ ]"} ${row.label}`}</Text>
          {row.hint ? <Text dimColor>{`  ${row.hint}`}</Text> : null}
        </Text>
      );
    case "value":
      return (
        <Text wrap="truncate-end">
          {lead}
          <Text bold={selected}>{`${row.label}: `}</Text>
          <Text>{row.value}</Text>
          {row.hint ? <Text dimColor>{`  ${row.hint}`}</Text> : null}
        </Text>
      );
    case "fact":
      return (
        <Text wrap="truncate-end" dimColor>
          {`  ${row.label}: ${row.value}`}
        </Text>
      );
  }
}

/** The settings screen as the session's prompt: it has the keys until Esc. */
export function SettingsPrompt({ prompt }: { prompt: Extract<Prompt, { kind: "settings" }> }) {
  const { stdout } = useStdout();
  // Under the screen: the input (3 rows), the status line and a hint; around its rows: the frame,
  // title, scroll markers, a field being edited, what runs, a problem (wrapped) and the footer.
  // Counted high, so the part ink redraws stays shorter than the terminal (see layout.ts).
  const maxRows = (stdout.rows || 24) - 18;
  return <SettingsScreen source={prompt.source} taskOpen={prompt.taskOpen} maxRows={maxRows} onClose={() => prompt.resolve(undefined)} />;
}
