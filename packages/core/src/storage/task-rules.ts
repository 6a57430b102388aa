import type { ActiveRule } from "../policy/decide-call.js";
import { parsePermissionRule, ruleProblem, type PermissionRule } from "../policy/permission-rules.js";

/**
 * The "always allow for this task" rules kept in a task's metadata.json (`taskRules`), read back
 * for a resumed task. They are checked here, one by one, rather than by the metadata schema: a
 * damaged rule costs the person one question again, never the whole task.
 */
export type LoadedTaskRules = {
  rules: ActiveRule[];
  /** One line per rule that was dropped, saying which file and what to do. */
  problems: string[];
};

/** Reads `taskRules` as stored (anything, if the file was edited or damaged) from `file`. */
export function loadTaskRules(stored: unknown, file: string): LoadedTaskRules {
  if (stored === undefined) return { rules: [], problems: [] };
  if (!Array.isArray(stored)) {
    return { rules: [], problems: [`${file} is damaged ("taskRules" is not a list); the rules allowed for this task were dropped, so you will be asked again for what they allowed.`] };
  }
  const rules: ActiveRule[] = [];
  const problems: string[] = [];
  for (const entry of stored as unknown[]) {
    const read = typeof entry === "string" ? readRule(entry) : { why: "not a rule" };
    if ("rule" in read) {
      if (!rules.some((r) => r.text === read.rule.text)) rules.push({ ...read.rule, scope: "task" });
      continue;
    }
    problems.push(`${file} is damaged (the task rule ${oneLine(entry)}: ${read.why}); it was dropped, so you will be asked again for what it allowed.`);
  }
  return { rules, problems };
}

/** The texts worth keeping of a stored list: what loadTaskRules would restore. */
export function keptTaskRuleTexts(stored: unknown): string[] {
  return loadTaskRules(stored, "").rules.map((r) => r.text);
}

/** The rule, parsed once, or why it cannot be restored. */
function readRule(text: string): { rule: PermissionRule } | { why: string } {
  const parsed = parsePermissionRule(text);
  if (!parsed.ok) return { why: firstLine(parsed.error) };
  const problem = ruleProblem(parsed.rule);
  return problem ? { why: firstLine(problem) } : { rule: parsed.rule };
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.replace(/\.$/, "");
}

function oneLine(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
