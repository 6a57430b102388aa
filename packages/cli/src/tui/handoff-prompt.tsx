/** @jsxRuntime automatic */
import { Box, Text } from "ink";
import { useState } from "react";
import { PickList } from "./pick-list.js";
import { TextField } from "./text-field.js";
import { useTheme } from "./theme.js";
import type { HandoffAnswer } from "./view-types.js";

/**
 * new_task: the model wants to hand the work over to a fresh task; its context is printed above.
 * The person starts it as it is, starts it with a correction of their own added, or keeps the
 * work in this task and says why.
 */
export function HandoffPrompt({ prompt }: { prompt: { resolve: (answer: HandoffAnswer) => void } }) {
  const theme = useTheme();
  const [typing, setTyping] = useState<"edit" | "stay" | undefined>(undefined);
  const field =
    typing === "edit" ? (
      <TextField label="What should the new task know besides the context above? Enter starts it · Esc goes back" onSubmit={(text) => prompt.resolve({ start: true, addition: text })} onCancel={() => setTyping(undefined)} />
    ) : typing === "stay" ? (
      <TextField label="Why stay (or what to do instead)? Enter sends · Esc goes back" onSubmit={(text) => prompt.resolve({ start: false, feedback: text })} onCancel={() => setTyping(undefined)} />
    ) : undefined;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.warning} paddingX={1}>
      <Text bold>Hand over to a fresh task with the context above?</Text>
      {field ?? (
        <PickList
          items={[
            { label: "Start the new task", shortcut: "y" },
            { label: "Start it with something added…", shortcut: "e" },
            { label: "Stay in this task…", shortcut: "n" },
          ]}
          onPick={(index) => (index === 0 ? prompt.resolve({ start: true }) : setTyping(index === 1 ? "edit" : "stay"))}
        />
      )}
    </Box>
  );
}
