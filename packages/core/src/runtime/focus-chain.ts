import type { Message } from "../model/types.js";
import { taskProgressParam } from "../protocol/task-progress.js";
import { checklistText, focusChainReminder, openItemsReminder, parseChecklist, taskProgressNote, taskProgressNoteLabel, type TaskProgressItem } from "../prompt/focus-chain-text.js";

export type { TaskProgressItem } from "../prompt/focus-chain-text.js";

export type FocusChainSettings = {
  /** Offer `task_progress` on every tool and keep the model's checklist (default on). */
  enabled: boolean;
  /** Remind the model to update its list after this many turns without a change (default 6). */
  remindEveryTurns: number;
};

export const defaultFocusChainSettings: FocusChainSettings = { enabled: true, remindEveryTurns: 6 };

/**
 * The focus chain (Cline's task_progress): the latest checklist the model sent with any tool call.
 * The model's own calls carry the list it sent; the task shows it again only where the conversation
 * may no longer hold it (a resumed task, after a compaction or restore), so it survives them without
 * ~100+ bytes on every reply. A resumed task finds it in the metadata it was persisted in, or else in
 * the conversation (the last note or call that carried it).
 */
export class FocusChain {
  private items: TaskProgressItem[] | undefined;
  private turnsSinceUpdate = 0;
  private remindedAtCompletion = false;
  /** The list as the conversation last showed it to the model (a note, or the model's own call); undefined: not since this object or forgetShown. */
  private shown: string | undefined;

  constructor(
    readonly settings: FocusChainSettings,
    items?: readonly TaskProgressItem[],
  ) {
    this.items = items && items.length > 0 ? items.map((i) => ({ ...i })) : undefined;
  }

  /** The list the conversation last showed the model (a resumed task without persisted state). */
  static fromMessages(settings: FocusChainSettings, messages: readonly Message[]): FocusChain {
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i]!;
      for (const part of [...message.content].reverse()) {
        const found = listIn(message.role, part);
        if (found && found.length > 0) return new FocusChain(settings, found);
      }
    }
    return new FocusChain(settings);
  }

  get current(): readonly TaskProgressItem[] | undefined {
    return this.items;
  }

  /**
   * The task_progress values of one reply's calls, in order: the last that holds a checklist
   * becomes the list. Returns the new list when it changed (to emit), else undefined.
   */
  update(progress: ReadonlyArray<string | undefined>): TaskProgressItem[] | undefined {
    if (!this.settings.enabled) return undefined;
    const latest = progress.flatMap((p) => (p === undefined ? [] : [parseChecklist(p)])).filter((items) => items.length > 0).at(-1);
    if (!latest) return undefined;
    this.turnsSinceUpdate = 0;
    this.shown = checklistText(latest); // the model's own call carries it
    if (this.items && checklistText(this.items) === checklistText(latest)) return undefined;
    this.items = latest;
    return latest.map((i) => ({ ...i }));
  }

  /** What the model gets with a turn's results: the list where it has not seen it as it is, and a reminder when it has gone stale (counts the turn). */
  notes(): string[] {
    if (!this.settings.enabled) return [];
    this.turnsSinceUpdate++;
    const notes = this.unseenList();
    if (this.turnsSinceUpdate >= this.settings.remindEveryTurns) {
      this.turnsSinceUpdate = 0;
      notes.push(focusChainReminder(this.items !== undefined));
    }
    return notes;
  }

  /** The list as a note, when the conversation does not show it as it is (then it does). */
  unseenList(): string[] {
    if (!this.settings.enabled || !this.items) return [];
    const text = checklistText(this.items);
    if (text === this.shown) return [];
    this.shown = text;
    return [taskProgressNote(this.items)];
  }

  /** The conversation was compacted or restored: the list is shown again with the next notes. */
  forgetShown(): void {
    this.shown = undefined;
  }

  /** A completion while the list has open items: the model is asked once (per run) to finish or update them. */
  completionCheck(): string | undefined {
    if (!this.settings.enabled || this.remindedAtCompletion || !this.items) return undefined;
    const open = this.items.filter((i) => !i.done);
    if (open.length === 0) return undefined;
    this.remindedAtCompletion = true;
    return openItemsReminder(open);
  }

  /** A new run (the person's next message) may be reminded again. */
  newRun(): void {
    this.remindedAtCompletion = false;
  }
}

/** The checklist a message part carries: a task progress note, or a call's task_progress (native input, or the xml tag in the reply's text). */
function listIn(role: Message["role"], part: Message["content"][number]): TaskProgressItem[] | undefined {
  if (part.type === "text") {
    if (role === "user") return part.text.startsWith(taskProgressNoteLabel) ? parseChecklist(part.text) : undefined;
    const tagged = [...part.text.matchAll(xmlTaskProgress)].at(-1);
    return tagged ? parseChecklist(tagged[1]!) : undefined;
  }
  if (part.type === "tool-call") {
    const value = (part.input as Record<string, unknown> | undefined)?.[taskProgressParam];
    return typeof value === "string" ? parseChecklist(value) : undefined;
  }
  return undefined;
}

const xmlTaskProgress = new RegExp(`<${taskProgressParam}>([\\s\\S]*?)</${taskProgressParam}>`, "g");
