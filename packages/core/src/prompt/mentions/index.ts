export { expandMentions, type ExpandedMentions, type MentionContext } from "./expand-mentions.js";
export { findMentions, type Mention } from "./find-mentions.js";
export { lastCommandOutput } from "./last-command-output.js";
export { defaultMentionLimits, type MentionLimits } from "./limits.js";
