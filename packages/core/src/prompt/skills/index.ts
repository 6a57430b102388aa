export { loadSkills, SKILL_FOLDERS, type LoadedSkills, type LoadSkillsOptions, type Skill, type SkippedSkill } from "./load-skills.js";
export { skillCatalog, SKILLS_CATALOG_MAX_TOKENS } from "./skill-catalog.js";
export { parseSkillFile, type ParsedSkillFile, type SkillFrontMatter } from "./skill-front-matter.js";
export { skillDescriptionProblem, skillNameProblem, SKILL_DESCRIPTION_MAX_CHARS, SKILL_NAME_MAX_CHARS } from "./skill-name.js";
