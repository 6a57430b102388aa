import type { ActiveRule } from "../policy/decide-call.js";
import { parsePermissionRule, ruleProblem } from "../policy/permission-rules.js";

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
    const why = typeof entry === "string" ? ruleError(entry) : "not a rule";
    if (why === undefined) {
      const parsed = parsePermissionRule(entry as string);
      if (parsed.ok && !rules.some((r) => r.text === parsed.rule.text)) rules.push({ ...parsed.rule, scope: "task" });
      continue;
    }
    problems.push(`${file} is damaged (the task rule ${oneLine(entry)}: ${why}); it was dropped, so you will be asked again for what it allowed.`);
  }
  return { rules, problems };
}

/** The texts worth keeping of a stored list: what loadTaskRules would restore. */
export function keptTaskRuleTexts(stored: unknown): string[] {
  return loadTaskRules(stored, "").rules.map((r) => r.text);
}

function ruleError(text: string): string | undefined {
  const parsed = parsePermissionRule(text);
  if (!parsed.ok) return firstLine(parsed.error);
  const problem = ruleProblem(parsed.rule);
  return problem ? firstLine(problem) : undefined;
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.replace(/\.$/, "");
}

function oneLine(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
