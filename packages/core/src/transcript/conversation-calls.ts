/**
 * Calls that are the conversation itself, not work to show as a card: a question (with its
 * options), a plan, a completion, a remark while working. Hosts show what they say as the
 * agent's words (or the question, or the result) and keep their cards out of sight.
 */
export const conversationCalls: ReadonlySet<string> = new Set(["ask_followup_question", "attempt_completion", "plan_mode_respond", "act_mode_respond"]);
