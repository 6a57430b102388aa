import type { CallFacts } from "./call-facts.js";
import { checkCommand, type CommandPermissions } from "./command/index.js";

/** A call refused whatever would approve it: `reason` (one line) for the person and the journal, `message` for the model. */
export type Refusal = { by: "policy" | "hook"; reason: string; message: string };

/**
 * Why the call is refused before anything may approve it (yolo, a rule, a hook's allow, the
 * person), or undefined. In order: a tool this mode does not offer; act_mode_respond twice in a
 * row (narration, not work); a path the ignore files block; a PreToolUse hook's deny; the command
 * rules, which hold in every mode, yolo included.
 */
export function refusalOf(facts: CallFacts, commands: CommandPermissions | undefined): Refusal | undefined {
  if (facts.mode && !facts.mode.offered) {
    const reason = `${facts.tool} is not available in ${facts.mode.now.toUpperCase()} mode`;
    return { by: "policy", reason, message: `${reason}. Use the tools this mode offers.` };
  }
  if (facts.tool === "act_mode_respond" && facts.previous === "act_mode_respond") {
    return {
      by: "policy",
      reason: "act_mode_respond twice in a row is narration, not work",
      message: "act_mode_respond was refused: you used it in your previous call. Do the work with the other tools, and update the user only when there is news.",
    };
  }
  if (facts.ignored) {
    const reason = `${facts.ignored.path} is blocked by ${facts.ignored.by}; the person has put it out of reach`;
    return { by: "policy", reason, message: `${reason}. Do not try to access it another way; work without it.` };
  }
  if (typeof facts.hook === "object") {
    return { by: "hook", reason: facts.hook.deny, message: facts.hook.message ?? `Blocked by a hook: ${facts.hook.deny}` };
  }
  if (facts.command && commands) {
    const checked = checkCommand(facts.command.text, commands, facts.command.shell);
    if (!checked.allowed) {
      const reason = checked.segment ? `${checked.reason} (failing part: ${checked.segment})` : checked.reason;
      return { by: "policy", reason, message: `Command denied by the command rules: ${reason}` };
    }
  }
  return undefined;
}
