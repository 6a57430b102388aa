/**
 * The note a run carried on after the person stopped it starts with, and its undoing: every host
 * tells the model the same way (through the session runner), and every host shows the person's
 * stored words without it (nor the context Cairn appended for the model).
 */
const stopNote = "[The task was stopped by the user and has now been resumed.]";

/** The message for the run after a stop: the note, then the person's words (or a plain "go on"). */
export function afterStop(text: string): string {
  return `${stopNote}\n\n${text || "Continue the task."}`;
}

/** The person's words without what Cairn added for the model: environment details, the environment line, the stop note. */
export function withoutAddedContext(text: string): string {
  return text
    .replace(/<environment_details>[\s\S]*?<\/environment_details>/g, "")
    // The line every turn's results carry (time, mode, how full the window is).
    .replace(/^\[Environment: [^\]\n]*\]$/gm, "")
    .replace(/^\[The task was stopped by the user[^\]]*\]\s*/, "")
    .trim();
}
