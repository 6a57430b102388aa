import { estimateTextTokens } from "../../context/token-estimate.js";
import type { Skill } from "./load-skills.js";

/**
 * The catalog's cap, in estimated tokens: every request carries it, so it stays a small share of
 * any context window (a skill's entry is its name, a description of at most 1,024 characters and a
 * path: some 30 skills with long descriptions, far more with short ones).
 */
export const SKILLS_CATALOG_MAX_TOKENS = 3000;

const HEADER = [
  "# Skills",
  "Skills are folders of instructions (and often scripts, references and assets) for particular kinds of work. When the task matches a skill's description, read its SKILL.md with read_file before you start, and follow it. A SKILL.md names other files of its skill by paths relative to its folder: read them only when the step at hand needs them. Reading inside a listed skill's folder needs no approval; a skill's scripts run as commands like any other.",
].join("\n\n");

/**
 * The system prompt's list of skills: the name, description and SKILL.md path of each, never a
 * body (the model reads that when a skill applies: progressive disclosure). In precedence order up
 * to the cap; the skills past it are not listed (and so get no read allowance), and the catalog
 * says how many and where to see them. "" when there is no skill, so the prompt is then unchanged.
 */
export function skillCatalog(skills: readonly Skill[], maxTokens: number): { text: string; listed: Skill[] } {
  if (skills.length === 0) return { text: "", listed: [] };
  let used = estimateTextTokens(HEADER);
  const entries: string[] = [];
  const listed: Skill[] = [];
  for (const skill of skills) {
    const entry = catalogEntry(skill);
    const cost = estimateTextTokens(entry) + 1;
    if (used + cost > maxTokens) break;
    used += cost;
    entries.push(entry);
    listed.push(skill);
  }
  const left = skills.length - listed.length;
  const parts = [HEADER, entries.join("\n")];
  if (left > 0) parts.push(`[${left} more skill${left === 1 ? " is" : "s are"} not listed: the list is capped at about ${maxTokens} tokens, nearest the workspace first. The person can see them all with \`cairn skills\`.]`);
  return { text: parts.filter((p) => p !== "").join("\n\n"), listed };
}

function catalogEntry(skill: Skill): string {
  const description = skill.description.replace(/\s+/g, " ");
  const scope = skill.scope === "global" ? " (global)" : "";
  return `- ${skill.name}${scope}: ${description}\n  SKILL.md: ${skill.source}`;
}
