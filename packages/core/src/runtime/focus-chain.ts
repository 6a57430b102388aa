import type { Message } from "../model/types.js";
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
 * The task shows it to the model with every turn's results, so it survives compaction; a resumed
 * task finds it again in the last results message (or the metadata it was persisted in).
 */
export class FocusChain {
  private items: TaskProgressItem[] | undefined;
  private turnsSinceUpdate = 0;
  private remindedAtCompletion = false;

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
      if (message.role !== "user") continue;
      for (const part of message.content) {
        if (part.type === "text" && part.text.startsWith(taskProgressNoteLabel)) return new FocusChain(settings, parseChecklist(part.text));
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
    if (this.items && checklistText(this.items) === checklistText(latest)) return undefined;
    this.items = latest;
    return latest.map((i) => ({ ...i }));
  }

  /** What the model gets with a turn's results: the list, and a reminder when it has gone stale (counts the turn). */
  notes(): string[] {
    if (!this.settings.enabled) return [];
    this.turnsSinceUpdate++;
    const notes = this.items ? [taskProgressNote(this.items)] : [];
    if (this.turnsSinceUpdate >= this.settings.remindEveryTurns) {
      this.turnsSinceUpdate = 0;
      notes.push(focusChainReminder(this.items !== undefined));
    }
    return notes;
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
