/** @jsxRuntime automatic */
import type { ApprovalCategory } from "@cairn/core";
import { Box, Text } from "ink";
import { useState, type ReactNode } from "react";
import { PickList, type PickItem } from "./pick-list.js";
import { TextField } from "./text-field.js";
import { truncate } from "./text-rows.js";
import { useTheme } from "./theme.js";
import type { Prompt } from "./view-types.js";

const categoryNames: Record<ApprovalCategory, string> = {
  read: "file reads",
  "read-external": "reads outside the workspace",
  edit: "file edits",
  "edit-external": "edits outside the workspace",
  "safe-commands": "safe commands",
  "all-commands": "commands",
  browser: "browser actions",
  mcp: "MCP tools",
};

function Frame({ title, children }: { title: ReactNode; children: ReactNode }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.warning} paddingX={1}>
      {title}
      {children}
    </Box>
  );
}

/** What would run, exactly: the command line, or where the edit's diff is. */
function WhatWouldRun({ prompt }: { prompt: Extract<Prompt, { kind: "approval" }> }) {
  const theme = useTheme();
  const { request, card } = prompt;
  const command = request.input.command;
  if (typeof command === "string") {
    return (
      <Box flexDirection="column">
        <Text bold>Run this command?</Text>
        <Box paddingLeft={2}>
          <Text color={theme.accent}>{`$ ${command}`}</Text>
        </Box>
        {request.summary.includes(" (") ? <Text dimColor>{`  ${request.summary.slice(request.summary.indexOf(" (") + 1)}`}</Text> : null}
      </Box>
    );
  }
  const edit = card?.edit;
  if (edit) {
    // Without a diff (it will fail, or could not be previewed) counts would only say "+0 −0".
    const counts = edit.problem ? "" : edit.created ? ` (new file, ${edit.added} lines)` : ` (+${edit.added} −${edit.removed})`;
    return (
      <Box flexDirection="column">
        <Text bold>{`Apply this ${edit.created ? "new file" : "edit"}? ${edit.path}${counts}`}</Text>
        {edit.problem ? <Text color={theme.error}>{`  ${edit.problem}`}</Text> : <Text dimColor>  The full diff is shown above.</Text>}
      </Box>
    );
  }
  const input = JSON.stringify(request.input);
  return (
    <Box flexDirection="column">
      <Text bold>{`Allow ${request.summary}?`}</Text>
      <Text dimColor wrap="truncate-end">{`  ${request.tool} ${truncate(input, 300)}`}</Text>
    </Box>
  );
}

export function ApprovalPrompt({ prompt }: { prompt: Extract<Prompt, { kind: "approval" }> }) {
  const [askingWhy, setAskingWhy] = useState(false);
  const kind = categoryNames[prompt.request.category];
  // A protected file (.cairnignore, .cairn/, .git/...) is asked about each time: no "always" for it.
  const guarded = prompt.request.protected;
  // "Always" adds the suggested rule for the rest of the task; without one (a protected file, a path outside the workspace) there is none.
  const rule = guarded ? undefined : prompt.request.suggested_rule;
  const theme = useTheme();
  const items: PickItem[] = [
    { label: "Yes", shortcut: "y" },
    ...(rule === undefined ? [] : [{ label: `Yes, and allow ${rule} for the rest of this task`, shortcut: "a" }]),
    { label: "No", shortcut: "n" },
    { label: "No, and tell the model why…", shortcut: "f" },
  ];
  const pick = (index: number) => {
    const choice = rule === undefined && index > 0 ? index + 1 : index;
    if (choice === 0) prompt.resolve({ approved: true });
    else if (choice === 1) prompt.resolve({ approved: true, always: true });
    else if (choice === 2) prompt.resolve({ approved: false });
    else setAskingWhy(true);
  };
  return (
    <Frame title={<WhatWouldRun prompt={prompt} />}>
      {guarded ? <Text color={theme.warning}>{`Protected file ${guarded.path}: ${guarded.reason}.`}</Text> : null}
      {askingWhy ? (
        <TextField label="Why not (or what to do instead)? Enter sends · Esc goes back" onSubmit={(text) => prompt.resolve({ approved: false, feedback: text })} onCancel={() => setAskingWhy(false)} />
      ) : (
        <PickList items={items} onPick={pick} />
      )}
    </Frame>
  );
}

export function QuestionPrompt({ prompt }: { prompt: Extract<Prompt, { kind: "question" }> }) {
  const [typing, setTyping] = useState(prompt.options.length === 0);
  const items: PickItem[] = [...prompt.options.map((label) => ({ label })), { label: "Another answer…" }];
  return (
    <Frame title={<Text bold>{`? ${prompt.question}`}</Text>}>
      {typing ? (
        <TextField label="Your answer: Enter sends" onSubmit={(text) => prompt.resolve(text)} {...(prompt.options.length > 0 ? { onCancel: () => setTyping(false) } : {})} />
      ) : (
        <PickList items={items} onPick={(index) => (index < prompt.options.length ? prompt.resolve(prompt.options[index]!) : setTyping(true))} />
      )}
    </Frame>
  );
}

export function PlanPrompt({ prompt }: { prompt: Extract<Prompt, { kind: "plan" }> }) {
  const [typing, setTyping] = useState(false);
  return (
    <Frame title={<Text bold>The plan is above. Carry it out?</Text>}>
      {typing ? (
        <TextField label="What should change in the plan? Enter sends · Esc goes back" onSubmit={(text) => prompt.resolve({ approved: false, feedback: text })} onCancel={() => setTyping(false)} />
      ) : (
        <PickList
          items={[
            { label: "Approve: switch to Act and carry it out", shortcut: "y" },
            { label: "Keep planning: tell the model what to change…", shortcut: "f" },
          ]}
          onPick={(index) => (index === 0 ? prompt.resolve({ approved: true }) : setTyping(true))}
        />
      )}
    </Frame>
  );
}

export function ConfirmPrompt({ prompt }: { prompt: Extract<Prompt, { kind: "confirm" }> }) {
  return (
    <Frame title={<Text bold>{prompt.title}</Text>}>
      <Text dimColor wrap="wrap">
        {prompt.detail}
      </Text>
      <PickList
        items={[
          { label: "Yes, go on", shortcut: "y" },
          { label: "No, stop here", shortcut: "n" },
        ]}
        onPick={(index) => prompt.resolve(index === 0)}
      />
    </Frame>
  );
}

export function ChoicePrompt({ prompt }: { prompt: Extract<Prompt, { kind: "choice" }> }) {
  return (
    <Box flexDirection="column">
      <Text bold>{prompt.title}</Text>
      <PickList items={prompt.options.map((o) => ({ label: o.label, ...(o.hint ? { hint: o.hint } : {}) }))} onPick={(index) => prompt.resolve(prompt.options[index]!.value)} />
      <Text dimColor>↑/↓ and Enter, or a number · Esc: cancel</Text>
    </Box>
  );
}

/** The prompt on screen, keyed so each new one starts fresh (selection, typing). */
export function PromptView({ prompt, id }: { prompt: Prompt; id: number }) {
  switch (prompt.kind) {
    case "approval":
      return <ApprovalPrompt key={id} prompt={prompt} />;
    case "question":
      return <QuestionPrompt key={id} prompt={prompt} />;
    case "plan":
      return <PlanPrompt key={id} prompt={prompt} />;
    case "confirm":
      return <ConfirmPrompt key={id} prompt={prompt} />;
    case "choice":
      return <ChoicePrompt key={id} prompt={prompt} />;
  }
}
