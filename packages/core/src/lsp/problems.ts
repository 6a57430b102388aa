/** One diagnostic as Cairn keeps it: 1-based line and column, as people and models count. */
export type Problem = {
  line: number;
  column: number;
  severity: "error" | "warning";
  message: string;
  /** The server's code for it (TS2345, reportAssignmentType), when it gives one. */
  code?: string;
  /** The server that reported it (typescript, pyright). */
  source: string;
};

/** Most problems listed after one edit; the rest are counted. */
export const MAX_LISTED = 20;
/** A message longer than this is cut (some servers explain a type mismatch over pages). */
const MAX_MESSAGE_CHARS = 400;

type LspDiagnostic = { range?: { start?: { line?: number; character?: number } }; severity?: number; message?: unknown; code?: unknown; source?: unknown };

/**
 * Errors (severity 1, or none given) and, when asked for, warnings (2) of a publishDiagnostics or
 * pull answer; hints and information are never problems.
 */
export function toProblems(diagnostics: readonly LspDiagnostic[], source: string, warnings: boolean): Problem[] {
  const problems: Problem[] = [];
  for (const d of diagnostics) {
    const severity = d.severity ?? 1;
    if (severity !== 1 && !(warnings && severity === 2)) continue;
    if (typeof d.message !== "string") continue;
    const code = typeof d.code === "string" || typeof d.code === "number" ? String(d.code) : undefined;
    problems.push({
      line: (d.range?.start?.line ?? 0) + 1,
      column: (d.range?.start?.character ?? 0) + 1,
      severity: severity === 1 ? "error" : "warning",
      message: d.message,
      ...(code === undefined ? {} : { code }),
      source: typeof d.source === "string" && d.source !== "" ? d.source : source,
    });
  }
  return problems.sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * The problems of `after` that `before` did not have. Lines move when an edit adds or removes
 * some, so a problem is matched by what it says (severity, code, message), not where: a file
 * that had two "cannot find name x" and now has three gains one, the last by position.
 */
export function newProblems(before: readonly Problem[], after: readonly Problem[]): Problem[] {
  const seen = new Map<string, number>();
  for (const p of before) seen.set(keyOf(p), (seen.get(keyOf(p)) ?? 0) + 1);
  const fresh: Problem[] = [];
  for (const p of after) {
    const left = seen.get(keyOf(p)) ?? 0;
    if (left > 0) seen.set(keyOf(p), left - 1);
    else fresh.push(p);
  }
  return fresh;
}

function keyOf(p: Problem): string {
  return `${p.severity}\u0000${p.code ?? ""}\u0000${p.message}`;
}

/** The code as people know it: TypeScript's numbers are "TS2345" (the server sends 2345). */
export function shownCode(p: Problem): string | undefined {
  if (p.code === undefined) return undefined;
  return /^\d+$/.test(p.code) && p.source === "typescript" ? `TS${p.code}` : p.code;
}

/** One line per problem: "Line 2:33 error TS2345: Argument of type ...". */
export function problemLine(p: Problem): string {
  const message = p.message.length > MAX_MESSAGE_CHARS ? `${p.message.slice(0, MAX_MESSAGE_CHARS)}…` : p.message;
  const code = shownCode(p);
  return `Line ${p.line}:${p.column} ${p.severity}${code === undefined ? "" : ` ${code}`}: ${message.replace(/\s*\n\s*/g, " ")}`;
}

/** The block the model reads after an edit's result: the problems it introduced, capped. */
export function describeNewProblems(shown: string, problems: readonly Problem[]): string {
  const listed = problems.slice(0, MAX_LISTED).map(problemLine);
  if (problems.length > MAX_LISTED) listed.push(`… and ${problems.length - MAX_LISTED} more.`);
  const what = problems.every((p) => p.severity === "error") ? "error" : "problem";
  const count = `${problems.length} new ${what}${problems.length === 1 ? "" : "s"}`;
  return `<new_problems path="${shown}">\nThis edit introduced ${count} (reported by ${problems[0]?.source ?? "the language server"}); fix ${problems.length === 1 ? "it" : "them"}:\n${listed.join("\n")}\n</new_problems>`;
}
