/**
 * # Hooks
 *
 * Commands Cairn runs at fixed points of a task, configured as Claude Code does it, so hooks
 * written for Claude Code (or Codex, Gemini CLI, Continue, which copy it) run unchanged.
 *
 * ## Where
 *
 * `hooks` in `CAIRN_HOME/settings.json` (global) and in the workspace's `.cairn/settings.json`
 * (project). Both apply; global hooks are listed first. Project hooks run only once the person
 * trusted that file's content and the scripts it runs (`cairn trust`, see trust/); until then, and
 * after any change, they are skipped with a notice. A file that is not valid JSON or not in the
 * shape below is skipped with a warning naming it; the other file still counts.
 *
 * ```json
 * {"hooks": {"PreToolUse": [{"matcher": "write_to_file|replace_in_file",
 *                            "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}}
 * ```
 *
 * - `matcher`: for PreToolUse/PostToolUse, the tool name. Empty, absent or `*` matches every tool;
 *   a plain name or names joined by `|` must match exactly; anything else is a regular expression
 *   (`mcp__github__.*`). SessionStart matches `startup|resume`, PreCompact `manual|auto`; the other
 *   events ignore it.
 * - `type`: only `"command"` runs (others are skipped with a warning).
 * - `timeout`: seconds, default 60. On timeout the hook and everything it started are killed, and
 *   it counts as a non-blocking error.
 *
 * ## How a hook runs
 *
 * `/bin/sh -c <command>`, in its own process group, cwd = the workspace, with the environment of
 * Cairn (minus its provider API keys) plus `CAIRN_PROJECT_DIR` and `CLAUDE_PROJECT_DIR` (the
 * workspace). All matching hooks of an event run in parallel; an identical command runs once.
 *
 * The person's hooks (CAIRN_HOME) run so on the host. The workspace's run inside the task's command
 * sandbox when there is one (HookRunnerOptions.sandbox): trust's digest covers only the files a
 * command names, not what a script sources or `npm run` runs, and the model may edit those, so the
 * hook gets a command's rights (workspace writable, credentials and CAIRN_HOME hidden, so
 * transcript_path is unreadable there). The contract below is the same inside and out. With
 * --sandbox off they run on the host like the person's.
 *
 * stdin is one JSON object: `session_id`, `transcript_path` (the task's conversation file, or ""),
 * `cwd`, `permission_mode` ("default" | "yolo" | "plan"), `hook_event_name`, and per event:
 *
 * | Event            | When                                        | Extra fields                                        |
 * |------------------|---------------------------------------------|-----------------------------------------------------|
 * | PreToolUse       | a tool call is about to run (before approval) | tool_name, tool_input, tool_use_id               |
 * | PostToolUse      | a tool call has run                         | tool_name, tool_input, tool_use_id, tool_response {content, is_error} |
 * | UserPromptSubmit | the person's message is about to be sent    | prompt                                              |
 * | Stop             | the agent is about to finish                | stop_hook_active (true when a Stop hook already kept it going) |
 * | SessionStart     | a task starts or is resumed                 | source: "startup" \| "resume"                       |
 * | SessionEnd       | a session ends                              | reason                                              |
 * | PreCompact       | before the conversation is compacted        | trigger: "manual" \| "auto", custom_instructions    |
 * | Notification     | Cairn waits for the person (approval, question) | message, notification_type                      |
 *
 * ## What the exit code means
 *
 * - **0**: passes. If stdout is a JSON object it may decide:
 *   - `{"decision": "block", "reason": "..."}`: as exit 2 with that reason.
 *   - `{"continue": false, "stopReason": "..."}`: the run ends, showing stopReason.
 *   - `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow" | "deny" | "ask",
 *     "permissionDecisionReason": "...", "updatedInput": {...}}}`: allow skips the approval prompt,
 *     ask forces one, deny refuses the call (the reason goes to the model).
 *   - `hookSpecificOutput.additionalContext` (PreToolUse, PostToolUse, UserPromptSubmit,
 *     SessionStart): text added for the model. Plain, non-JSON stdout of UserPromptSubmit and
 *     SessionStart is added the same way.
 *   - `systemMessage`: shown to the person.
 * - **2**: blocks; stderr is the reason. PreToolUse: the call is denied, even in yolo mode.
 *   PostToolUse: the reason is shown to the model with the result. UserPromptSubmit: the message
 *   is not sent and the run ends with the reason. Stop: the agent must keep working, told why
 *   (at most 3 times in a row; then the run ends anyway). Other events cannot block: stderr is
 *   shown to the person.
 * - **anything else**: a non-blocking error, shown to the person and otherwise ignored.
 *
 * Several hooks of one event: a deny from any wins (then ask, then allow); contexts and reasons
 * are joined in order, global hooks first. Text a hook adds is capped at 10,000 characters.
 *
 * ## In the loop
 *
 * The loop knows one hook interface, `Hooks` (loop-hooks.ts). `shellHooks(runner, session)` is these
 * commands as Hooks; `composeHooks(list)` runs a program's hooks (createAgent's) and them as one,
 * program first, so the loop calls nothing else.
 */
export { compileMatcher, hookSettingsFiles, hooksDigest, loadHookConfig, parseHooks, projectSettingsFile, readHooksFile, type ConfiguredHook, type HookConfig } from "./config.js";
export {
  hookEventNames,
  hookPayload,
  isHookEventName,
  permissionMode,
  type HookEventName,
  type HookSession,
  type NotificationInput,
  type PermissionMode,
  type PostToolUseInput,
  type PreCompactInput,
  type PreToolUseInput,
  type SessionEndInput,
  type SessionStartInput,
  type StopInput,
  type UserPromptSubmitInput,
} from "./events.js";
export { MAX_HOOK_TEXT, type HookNotice } from "./hook-output.js";
export { HookRunner, type BlockOutcome, type ContextOutcome, type HookOutcome, type HookRunnerOptions, type PreToolUseOutcome } from "./hook-runner.js";
export { loadHooks, type LoadedHooks } from "./load-hooks.js";
export { runHook, type HookRun } from "./run-hook.js";
export type { AfterToolVerdict, BeforeToolVerdict, HookContext, Hooks } from "./loop-hooks.js";
export { asAfterVerdict, composeHooks } from "./compose-hooks.js";
export { shellHooks } from "./shell-hooks.js";
