import { toolResultText } from "../protocol/result-text.js";
import type { HookSession } from "./events.js";
import type { HookRunner } from "./hook-runner.js";
import type { Hooks } from "./loop-hooks.js";

/**
 * The shell hooks of settings (Claude Code's contract) as the loop's Hooks. Each point asks the
 * runner only when a hook is configured for it, so a task without hooks does no work here.
 * `session` is read at each event: the mode, and so permission_mode, can change during a task.
 */
export function shellHooks(runner: HookRunner, session: () => HookSession): Hooks {
  return {
    async beforeTool(call, { signal }) {
      if (!runner.has("PreToolUse", call.name)) return undefined;
      const pre = await runner.preToolUse({ ...session(), toolName: call.name, toolInput: call.input, toolUseId: call.id }, signal);
      const common = { notices: pre.notices, ...(pre.endRun !== undefined ? { endRun: pre.endRun } : {}) };
      if (pre.decision === "deny") {
        const reason = pre.reason ?? "denied by a PreToolUse hook";
        return { ...common, deny: reason, message: `Blocked by a PreToolUse hook: ${reason}` };
      }
      return {
        ...common,
        ...(pre.updatedInput ? { input: pre.updatedInput } : {}),
        ...(pre.decision ? { decision: pre.decision } : {}),
        ...(pre.additionalContext ? { context: pre.additionalContext } : {}),
      };
    },
    async afterTool(call, result, { signal }) {
      if (!runner.has("PostToolUse", call.name)) return undefined;
      const toolResponse = { content: toolResultText(result), isError: result.isError === true };
      const post = await runner.postToolUse({ ...session(), toolName: call.name, toolInput: call.input, toolUseId: call.id, toolResponse }, signal);
      const context = [...(post.additionalContext ? [post.additionalContext] : []), ...(post.block ? [`[PostToolUse hook: ${post.reason ?? "blocked"}]`] : [])];
      return { notices: post.notices, ...(context.length > 0 ? { context: context.join("\n") } : {}), ...(post.endRun !== undefined ? { endRun: post.endRun } : {}) };
    },
    async sessionStart(source, { signal }) {
      if (!runner.has("SessionStart", source)) return undefined;
      const start = await runner.sessionStart({ ...session(), source }, signal);
      return { notices: start.notices, ...(start.additionalContext ? { context: start.additionalContext } : {}) };
    },
    async onPrompt(prompt, { signal }) {
      if (!runner.has("UserPromptSubmit")) return undefined;
      const submit = await runner.userPromptSubmit({ ...session(), prompt }, signal);
      if (submit.block || submit.endRun) return { notices: submit.notices, block: submit.reason ?? submit.endRun ?? "blocked" };
      return { notices: submit.notices, ...(submit.additionalContext ? { context: submit.additionalContext } : {}) };
    },
    async onStop(continuations, { signal }) {
      if (!runner.has("Stop")) return undefined;
      const stop = await runner.stop({ ...session(), continuations }, signal);
      return { notices: stop.notices, ...(stop.block ? { block: stop.reason ?? "a Stop hook wants more work" } : {}) };
    },
    async beforeCompact(trigger, { signal }) {
      if (!runner.has("PreCompact", trigger)) return undefined;
      return { notices: (await runner.preCompact({ ...session(), trigger }, signal)).notices };
    },
    async sessionEnd(reason, { signal }) {
      if (!runner.has("SessionEnd")) return undefined;
      return { notices: (await runner.sessionEnd({ ...session(), reason }, signal)).notices };
    },
    async notification(message, notificationType, { signal }) {
      if (!runner.has("Notification")) return undefined;
      return { notices: (await runner.notification({ ...session(), message, notificationType }, signal)).notices };
    },
  };
}
