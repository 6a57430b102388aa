export { loadShellParser, ShellParser } from "./parse-shell.js";
export { analyseCommand } from "./analyse.js";
export type { CommandAnalysis, Segment, Redirect } from "./segments.js";
export { checkCommand, type CommandDecision } from "./check-command.js";
export { segmentText } from "./forms.js";
export { commandPermissionsSchema, parseCommandPermissions, validateCommandPermissions, hasCommandRules, type CommandPermissions, type ParsedPermissions } from "./rules.js";
export { classifyCommand, type ClassifyOptions, type CommandRisk } from "./classify.js";
export { riskChecks } from "./risk-checks.js";
