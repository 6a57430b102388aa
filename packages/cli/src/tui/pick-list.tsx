/** @jsxRuntime automatic */
import { Box, Text } from "ink";
import { useRef, useState } from "react";
import { useKeys } from "./key-router.js";
import { symbols, useTheme } from "./theme.js";

export type PickItem = { label: string; hint?: string; /** A letter that picks it at once. */ shortcut?: string };

const MAX_VISIBLE = 8;

/**
 * A list to choose from: ↑/↓ and Enter, a number, or the item's letter. Long lists scroll.
 * Esc is not used here, so it keeps its global meaning (stop the turn).
 */
export function PickList({
  items,
  onPick,
  onTyping,
  active = true,
}: {
  items: PickItem[];
  onPick: (index: number) => void;
  /** Other printable keys: the person is typing rather than choosing. */
  onTyping?: (text: string) => void;
  active?: boolean;
}) {
  const theme = useTheme();
  const [selected, setSelected] = useState(0);
  const current = useRef(0);
  const select = (index: number) => {
    current.current = index;
    setSelected(index);
  };
  useKeys((input, key) => {
    let pick: number | undefined;
    // Pasted text is not a choice: a stray paste must not answer an approval.
    if (key.paste) return true;
    if (key.upArrow) select((current.current - 1 + items.length) % items.length);
    else if (key.downArrow || key.tab) select((current.current + 1) % items.length);
    else if (key.return) pick = current.current;
    else if (key.ctrl || key.meta) return false;
    else if (/^[1-9]$/.test(input) && Number(input) <= items.length) pick = Number(input) - 1;
    else {
      const byLetter = items.findIndex((item) => item.shortcut !== undefined && item.shortcut === input.toLowerCase());
      if (byLetter === -1) {
        if (!onTyping || input === "" || key.escape || key.backspace || key.delete) return false;
        onTyping(input);
        return true;
      }
      pick = byLetter;
    }
    if (pick !== undefined) onPick(pick);
    return true;
  }, active);
  const first = Math.max(0, Math.min(selected - MAX_VISIBLE + 1, items.length - MAX_VISIBLE));
  const visible = items.slice(first, first + MAX_VISIBLE);
  return (
    <Box flexDirection="column">
      {first > 0 ? <Text dimColor>{`    ↑ ${first} more`}</Text> : null}
      {visible.map((item, i) => {
        const index = first + i;
        const isSelected = index === selected;
        return (
          <Text key={index} wrap="truncate-end">
            <Text color={theme.accent}>{isSelected ? `${symbols.prompt} ` : "  "}</Text>
            <Text dimColor={!isSelected}>{`${index + 1}. `}</Text>
            <Text bold={isSelected}>{item.label}</Text>
            {item.shortcut ? <Text dimColor>{` (${item.shortcut})`}</Text> : null}
            {item.hint ? <Text dimColor>{`  ${item.hint}`}</Text> : null}
          </Text>
        );
      })}
      {first + MAX_VISIBLE < items.length ? <Text dimColor>{`    ↓ ${items.length - first - MAX_VISIBLE} more`}</Text> : null}
    </Box>
  );
}
