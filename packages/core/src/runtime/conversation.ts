import type { ImagePart, Message } from "../model/types.js";
import type { TaskJournal } from "../storage/task-journal.js";

/**
 * A task's conversation with the model, kept in step with its journal: every message added is
 * written down as it is added, and a conversation replaced whole (restored, compacted) is written
 * down whole, so a resumed task finds exactly what the model saw.
 */
export class Conversation {
  private list: Message[];

  constructor(
    private readonly journal: TaskJournal | undefined,
    messages: readonly Message[] | undefined,
  ) {
    this.list = messages ? structuredClone([...messages]) : [];
  }

  /** The messages as they are now (the array is replaced when the conversation is). */
  get messages(): Message[] {
    return this.list;
  }

  get length(): number {
    return this.list.length;
  }

  record(message: Message): void {
    this.list.push(message);
    this.journal?.message(message);
  }

  appendUser(text: string, images: readonly ImagePart[] = []): void {
    this.record({ role: "user", content: [{ type: "text", text }, ...images] });
  }

  /** A message already in the journal (runTurn writes the reply as it streams). */
  addJournaled(message: Message): void {
    this.list.push(message);
  }

  replace(messages: Message[]): void {
    this.list = messages;
    this.journal?.replaceMessages(this.list);
  }
}
