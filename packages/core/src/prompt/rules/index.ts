export { findRepositoryRoot, formatKiB, loadRules, RULES_MAX_BYTES, type LoadedRules, type LoadRulesOptions, type RuleKind, type RuleSection, type SkippedRule } from "./load-rules.js";
