export { expandMentions, type ExpandedMentions, type MentionContext } from "./expand-mentions.js";
export { findMentions, type Mention } from "./find-mentions.js";
export { defaultMentionLimits, type MentionLimits } from "./limits.js";
