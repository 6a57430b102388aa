/**
 * Loop detection: pure functions over the calls a task has made. A warning gives the model one
 * chance to change course; a stop ends the run (or asks the person, when someone is there).
 */

export type CallRecord = {
  name: string;
  /** Tool name plus its parameters with keys sorted and progress-only parameters left out. */
  signature: string;
  /** The error text when the call failed, for the same-error pattern. */
  error?: string;
};

export type LoopSettings = {
  /** Identical consecutive calls: warn at this many... */
  identicalWarnAt: number;
  /** ...and stop at this many. */
  identicalStopAt: number;
  /** A-B-A-B alternation: warn after this many calls alternating between two signatures... */
  alternationWarnAt: number;
  alternationStopAt: number;
  /** The same error text coming back: warn at this many consecutive occurrences... */
  sameErrorWarnAt: number;
  sameErrorStopAt: number;
};

export const defaultLoopSettings: LoopSettings = {
  identicalWarnAt: 3,
  identicalStopAt: 5,
  alternationWarnAt: 6,
  alternationStopAt: 10,
  sameErrorWarnAt: 3,
  sameErrorStopAt: 5,
};

export type LoopVerdict = { level: "ok" } | { level: "warn" | "stop"; pattern: "identical" | "alternation" | "same_error"; reason: string };

/** Parameters that only report progress and must not make two calls look different. */
const progressOnly = new Set(["task_progress"]);

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export function callSignature(name: string, input: Record<string, unknown>): string {
  const kept = Object.fromEntries(Object.entries(input).filter(([k]) => !progressOnly.has(k)));
  return `${name}:${JSON.stringify(canonical(kept))}`;
}

function trailingRun<T>(items: readonly T[], same: (a: T, b: T) => boolean): number {
  const last = items[items.length - 1];
  if (last === undefined) return 0;
  let n = 0;
  for (let i = items.length - 1; i >= 0 && same(items[i]!, last); i--) n++;
  return n;
}

/** Length of the trailing A-B-A-B… run (A ≠ B), counted in calls. */
function alternationRun(history: readonly CallRecord[]): number {
  const n = history.length;
  if (n < 2) return 0;
  const a = history[n - 1]!.signature;
  const b = history[n - 2]!.signature;
  if (a === b) return 0;
  let run = 2;
  for (let i = n - 3; i >= 0; i--) {
    const expected = (n - 1 - i) % 2 === 0 ? a : b;
    if (history[i]!.signature !== expected) break;
    run++;
  }
  return run;
}

function level(count: number, warnAt: number, stopAt: number): "ok" | "warn" | "stop" {
  if (count >= stopAt) return "stop";
  if (count >= warnAt) return "warn";
  return "ok";
}

/** Checks the history as it stands after the latest call. Stops win over warnings. */
export function checkForLoop(history: readonly CallRecord[], settings: LoopSettings = defaultLoopSettings): LoopVerdict {
  const verdicts: LoopVerdict[] = [];
  const identical = trailingRun(history, (x, y) => x.signature === y.signature);
  const identicalLevel = level(identical, settings.identicalWarnAt, settings.identicalStopAt);
  if (identicalLevel !== "ok") {
    const name = history[history.length - 1]!.name;
    verdicts.push({ level: identicalLevel, pattern: "identical", reason: `${name} was called ${identical} times in a row with the same parameters.` });
  }
  const alternation = alternationRun(history);
  const alternationLevel = level(alternation, settings.alternationWarnAt, settings.alternationStopAt);
  if (alternationLevel !== "ok") {
    const [x, y] = [history[history.length - 2]!.name, history[history.length - 1]!.name];
    verdicts.push({ level: alternationLevel, pattern: "alternation", reason: `The last ${alternation} calls alternate between the same two (${x} and ${y}) without progress.` });
  }
  const errors = history.map((r) => r.error);
  const sameError = errors[errors.length - 1] === undefined ? 0 : trailingRun(errors, (x, y) => x === y);
  const errorLevel = level(sameError, settings.sameErrorWarnAt, settings.sameErrorStopAt);
  if (errorLevel !== "ok") {
    verdicts.push({ level: errorLevel, pattern: "same_error", reason: `The same error came back ${sameError} times in a row: ${(errors[errors.length - 1] ?? "").split("\n")[0]!.slice(0, 160)}` });
  }
  return verdicts.find((v) => v.level === "stop") ?? verdicts[0] ?? { level: "ok" };
}

/** The note that gives the model its one chance to change course. */
export function loopWarning(verdict: Extract<LoopVerdict, { level: "warn" | "stop" }>): string {
  return `[Loop warning] ${verdict.reason} Repeating it will not give a different result. Step back: re-read the last results, change your approach, or ask the user with ask_followup_question. If this goes on, the task will be stopped.`;
}
