/** One line of the model's task_progress checklist. */
export type TaskProgressItem = { text: string; done: boolean };

const itemLine = /^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]\s+(.+?)\s*$/;

/** `- [ ] step` / `- [x] step` lines of a markdown checklist; anything else is ignored. */
export function parseChecklist(markdown: string): TaskProgressItem[] {
  return markdown.split("\n").flatMap((line) => {
    const match = itemLine.exec(line);
    return match ? [{ text: match[2]!, done: match[1] !== " " }] : [];
  });
}

export function checklistText(items: readonly TaskProgressItem[]): string {
  return items.map((i) => `- [${i.done ? "x" : " "}] ${i.text}`).join("\n");
}

/** How the list starts in a results message; a resumed task finds it by this. */
export const taskProgressNoteLabel = "[Task progress";

/** The list as the model sees it with each turn's results. */
export function taskProgressNote(items: readonly TaskProgressItem[]): string {
  const done = items.filter((i) => i.done).length;
  return `${taskProgressNoteLabel} (${done}/${items.length} done; update it through task_progress as steps finish):\n${checklistText(items)}\n]`;
}

export function focusChainReminder(hasList: boolean): string {
  return hasList
    ? "[Reminder: your task_progress checklist has not changed for several turns. Send the updated list with your next tool call.]"
    : "[Reminder: send task_progress (a markdown checklist of the task's steps, - [ ] / - [x]) with your next tool call, and keep it current.]";
}

export function openItemsReminder(open: readonly TaskProgressItem[]): string {
  return `[Your task_progress checklist still has open items:\n${checklistText(open)}\nFinish them, or if they are done or no longer needed, call attempt_completion again with the updated task_progress.]`;
}

/** One line of the system prompt's rules; short, since every first request carries it. */
export const taskProgressRule = "Every tool takes an optional task_progress: a markdown checklist of the task's steps (- [ ] / - [x]). Send it with your first call and again whenever a step finishes.";
