import type { ImagePart } from "../../model/types.js";

/** How much each kind of mention may add to a message. */
export type MentionLimits = {
  /** A file's content (Cline inlines whole files; 100 KB is about 25k tokens). */
  fileBytes: number;
  /** Entries of a folder listing. */
  folderEntries: number;
  /** A web page as downloaded... */
  urlDownloadBytes: number;
  /** ...and as Markdown. */
  urlMarkdownBytes: number;
  urlTimeoutMs: number;
  /** A diff or a commit. */
  gitBytes: number;
  gitTimeoutMs: number;
  /** The latest command output (its end is kept: that is where errors are). */
  terminalBytes: number;
  /** The problems checker's output (its start is kept: the first errors matter most). */
  problemsBytes: number;
  problemsTimeoutMs: number;
};

export const defaultMentionLimits: MentionLimits = {
  fileBytes: 100 * 1024,
  folderEntries: 200,
  urlDownloadBytes: 2 * 1024 * 1024,
  urlMarkdownBytes: 50 * 1024,
  urlTimeoutMs: 10_000,
  gitBytes: 64 * 1024,
  gitTimeoutMs: 30_000,
  terminalBytes: 32 * 1024,
  problemsBytes: 32 * 1024,
  problemsTimeoutMs: 60_000,
};

/** A value for an XML-ish attribute. */
export function attr(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** What one mention adds: a block for the message, notes for the person, paths now in play. */
export type Expansion = {
  block?: string;
  notes: string[];
  mentioned?: string[];
  /** Pictures the message carries (an image mention, for a model that takes images). */
  images?: ImagePart[];
};

/** A mention that could not be expanded: the note, also shown to the model so it does not guess. */
export function refused(raw: string, reason: string): Expansion {
  const note = `${raw} was not expanded: ${reason}`;
  return { block: `[${note}]`, notes: [note] };
}
