/** @jsxRuntime automatic */
import { describeEstimate, type ApprovalRequest, type PlanReview } from "@cairn/core";
import { Box, Text } from "ink";
import { useState, type ReactNode } from "react";
import { PickList, type PickItem } from "./pick-list.js";
import { TextField } from "./text-field.js";
import { useTheme } from "./theme.js";
import { approvalTitle } from "./approval-title.js";
import { HandoffPrompt } from "./handoff-prompt.js";
import { SettingsPrompt } from "./settings-screen.js";
import type { ApprovalAnswer, Prompt } from "./view-types.js";

function Frame({ title, children }: { title: ReactNode; children: ReactNode }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.warning} paddingX={1}>
      {title}
      {children}
    </Box>
  );
}

/** What would run, exactly, as core's preview gives it: the edit (its diff is printed above), the command, the URL, the MCP tool. */
function WhatWouldRun({ request }: { request: ApprovalRequest }) {
  const theme = useTheme();
  const { heading, lines } = approvalTitle(request);
  return (
    <Box flexDirection="column">
      <Text bold>{heading}</Text>
      {lines.map((line, i) => (
        <Box key={i} paddingLeft={2}>
          <Text {...(line.tone === "command" ? { color: theme.accent } : line.tone === "problem" ? { color: theme.error } : { dimColor: true })}>{line.text}</Text>
        </Box>
      ))}
    </Box>
  );
}

type Choice = { item: PickItem; answer: ApprovalAnswer | "why" };

/**
 * Yes, No, No with a reason; and, when core suggests a rule, "always allow" it for this task or
 * for this workspace (saved, listed by `cairn permissions`). Never for a protected file
 * (.cairnignore, .cairn/, .git/...): the person is asked about each change to it.
 */
function choicesFor(request: ApprovalRequest): Choice[] {
  const rule = request.protected ? undefined : request.suggested_rule;
  return [
    { item: { label: "Yes", shortcut: "y" }, answer: { approved: true } },
    ...(rule === undefined
      ? []
      : [
          { item: { label: `Yes, and allow ${rule} for the rest of this task`, shortcut: "a" }, answer: { approved: true, remember: "task" as const } },
          { item: { label: `Yes, and always allow ${rule} in this workspace`, shortcut: "w" }, answer: { approved: true, remember: "workspace" as const } },
        ]),
    { item: { label: "No", shortcut: "n" }, answer: { approved: false } },
    { item: { label: "No, and tell the model why…", shortcut: "f" }, answer: "why" },
  ];
}

export function ApprovalPrompt({ prompt }: { prompt: Extract<Prompt, { kind: "approval" }> }) {
  const [askingWhy, setAskingWhy] = useState(false);
  const theme = useTheme();
  const guarded = prompt.request.protected;
  const choices = choicesFor(prompt.request);
  const pick = (index: number) => {
    const answer = choices[index]!.answer;
    if (answer === "why") setAskingWhy(true);
    else prompt.resolve(answer);
  };
  return (
    <Frame title={<WhatWouldRun request={prompt.request} />}>
      {guarded ? <Text color={theme.warning}>{`Protected file ${guarded.path}: ${guarded.reason}.`}</Text> : null}
      {askingWhy ? (
        <TextField label="Why not (or what to do instead)? Enter sends · Esc goes back" onSubmit={(text) => prompt.resolve({ approved: false, feedback: text })} onCancel={() => setAskingWhy(false)} />
      ) : (
        <PickList items={choices.map((c) => c.item)} onPick={pick} />
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
  // With a cost estimate, the plan can be approved with its budget: the Act phase stops there.
  const budget = prompt.estimate?.budget_usd ?? undefined;
  const answers: PlanReview[] = [{ approved: true }, ...(budget !== undefined ? [{ approved: true, budgetUsd: budget }] : [])];
  return (
    <Frame title={<Text bold>The plan is above. Carry it out?</Text>}>
      {prompt.estimate ? (
        <Text dimColor wrap="wrap">
          {describeEstimate(prompt.estimate)}
        </Text>
      ) : null}
      {typing ? (
        <TextField label="What should change in the plan? Enter sends · Esc goes back" onSubmit={(text) => prompt.resolve({ approved: false, feedback: text })} onCancel={() => setTyping(false)} />
      ) : (
        <PickList
          items={[
            { label: "Approve: switch to Act and carry it out", shortcut: "y" },
            ...(budget !== undefined ? [{ label: `Approve with budget $${budget.toFixed(2)}: the task stops once it has cost that much`, shortcut: "b" }] : []),
            { label: "Keep planning: tell the model what to change…", shortcut: "f" },
          ]}
          onPick={(index) => (index < answers.length ? prompt.resolve(answers[index]!) : setTyping(true))}
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
      <PickList
        items={prompt.options.map((o) => ({ label: o.label, ...(o.hint ? { hint: o.hint } : {}) }))}
        onPick={(index) => prompt.resolve(prompt.options[index]!.value)}
        {...(prompt.onTyping ? { onTyping: prompt.onTyping } : {})}
      />
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
    case "handoff":
      return <HandoffPrompt key={id} prompt={prompt} />;
    case "settings":
      return <SettingsPrompt key={id} prompt={prompt} />;
  }
}
