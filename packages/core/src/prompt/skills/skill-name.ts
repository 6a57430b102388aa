/** The Agent Skills format's limits on the two fields every SKILL.md must give. */
export const SKILL_NAME_MAX_CHARS = 64;
export const SKILL_DESCRIPTION_MAX_CHARS = 1024;

/** Lowercase letters and digits in runs joined by single hyphens: no leading, trailing or doubled "-". */
const NAME = /^[\p{Ll}\p{Nd}]+(?:-[\p{Ll}\p{Nd}]+)*$/u;

/**
 * Why `name` is not a valid skill name for the folder `folder`, or undefined when it is. The
 * format wants the name to be the folder's: the folder is how a person finds the skill, the name
 * how the model asks for it, and the two must not disagree.
 */
export function skillNameProblem(name: string, folder: string): string | undefined {
  const normal = name.normalize("NFKC");
  if (normal === "") return '"name" is missing';
  if ([...normal].length > SKILL_NAME_MAX_CHARS) return `"name" is ${[...normal].length} characters, over the ${SKILL_NAME_MAX_CHARS} a skill name may be`;
  if (!NAME.test(normal)) return `"name" must be lowercase letters, digits and single hyphens, not starting or ending with one (got "${name}")`;
  if (normal !== folder.normalize("NFKC")) return `"name" is "${name}" but its folder is "${folder}"; they must be the same: rename one`;
  return undefined;
}

/** Why `description` cannot describe a skill, or undefined when it can. */
export function skillDescriptionProblem(description: string | undefined): string | undefined {
  if (description === undefined || description.trim() === "") return '"description" is missing; the model chooses a skill by it';
  const chars = [...description.trim()].length;
  if (chars > SKILL_DESCRIPTION_MAX_CHARS) return `"description" is ${chars} characters, over the ${SKILL_DESCRIPTION_MAX_CHARS} the format allows; shorten it and move details into the body`;
  return undefined;
}
